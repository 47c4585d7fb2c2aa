// A JSON POST to a server on 127.0.0.1, answering the status, headers and body text (whatever the status).
import { request as httpRequest } from "node:http";

/** POSTs `body` as JSON to http://127.0.0.1:<port><path>. */
export function postJson(
  port: number,
  path: string,
  body: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const call = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { "Content-Type": "application/json" },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    call.on("error", reject);
    call.end(text);
  });
}
