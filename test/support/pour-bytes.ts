// An HTTP answer of any size without holding it: pieces written with back-pressure until `totalBytes` or
// until the client goes away (tests of readers that must stop at a byte bound).
import type { ServerResponse } from "node:http";

const PIECE = Buffer.alloc(64 * 1024, 0x61);

/** Writes `totalBytes` (then ends) or until the client is gone; resolves the bytes handed to the socket. */
export function pour(response: ServerResponse, totalBytes: number): Promise<number> {
  return new Promise((resolve) => {
    let written = 0;
    const more = (): void => {
      while (written < totalBytes && !response.destroyed) {
        const piece = PIECE.subarray(0, Math.min(PIECE.length, totalBytes - written));
        written += piece.length;
        if (!response.write(piece)) {
          response.once("drain", more);
          return;
        }
      }
      if (written >= totalBytes) response.end();
    };
    response.once("close", () => resolve(written));
    more();
  });
}
