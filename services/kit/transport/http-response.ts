// Writing an HTTP/1.1 answer for the routes served beside gRPC: one write with its length.
import type { ServerResponse } from "node:http";

/** Sends `body` with `status`: text/plain for a string, octet-stream for bytes, unless headers say otherwise. */
export function sendHttp(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  const isText = typeof body === "string";
  response.writeHead(status, {
    "Content-Type": isText ? "text/plain; charset=utf-8" : "application/octet-stream",
    "Content-Length": String(Buffer.byteLength(body)),
    // A body is only what its Content-Type says: a browser never sniffs text or bytes into a page.
    "X-Content-Type-Options": "nosniff",
    ...headers,
  });
  response.end(body);
}

/** Sends a JSON document with 200. */
export function sendJson(response: ServerResponse, body: unknown): void {
  sendHttp(response, 200, JSON.stringify(body), { "Content-Type": "application/json" });
}
