// Clients that cost the flooding process little per call (bench/overload's sustained floods and bursts),
// so a refusal's time is mostly the server's: gRPC framed by hand on plain HTTP/2 sessions (about a
// tenth of nice-grpc's client CPU per call), HTTP/1.1 over kept-alive sockets, Kepler's socket as Kepler
// dials it. Each call resolves with its outcome: the gRPC status, the HTTP status, or the socket's
// reply ("busy" or "answered"); a transport error rejects.
import { type ClientHttp2Session, connect as connectHttp2 } from "node:http2";
import { Agent, request as httpRequest } from "node:http";
import { connect as connectSocket } from "node:net";

/** The code a call came back with: "grpc 8", "http 429", "socket busy", ... */
export type LightOutcome = string;

/** Refusal codes per transport (what a flood beyond the limits must get). */
export const REFUSED = new Set(["grpc 8", "http 429", "socket busy"]);

// An empty message: 1 byte "not compressed" and a 4-byte length of 0 (every request sent here is empty).
const EMPTY_MESSAGE = Buffer.alloc(5);

/** gRPC calls with an empty request on `sessions` plain HTTP/2 connections, taken in turn. */
export function grpcDoor(address: string, path: string, sessions = 4): { call: () => Promise<LightOutcome>; close: () => void } {
  const open: ClientHttp2Session[] = Array.from({ length: sessions }, () => connectHttp2(`http://${address}`));
  for (const session of open) session.on("error", () => undefined);
  let next = 0;
  return {
    call: () =>
      new Promise((resolve, reject) => {
        const session = open[next++ % open.length]!;
        const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
        let status: string | undefined;
        // A refusal is trailers-only: its status comes with the response headers.
        stream.on("response", (headers) => (status ??= headers["grpc-status"] as string | undefined));
        stream.on("trailers", (trailers) => (status ??= trailers["grpc-status"] as string | undefined));
        stream.on("data", () => undefined);
        stream.on("error", reject);
        stream.on("close", () => (status === undefined ? reject(new Error("no grpc-status")) : resolve(`grpc ${status}`)));
        stream.end(EMPTY_MESSAGE);
      }),
    close: () => open.forEach((session) => session.close()),
  };
}

/** GETs on kept-alive HTTP/1.1 connections (at most `sockets` at once). */
export function httpDoor(port: number, path: string, sockets = 16): { call: () => Promise<LightOutcome>; close: () => void } {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return {
    call: () =>
      new Promise((resolve, reject) => {
        const request = httpRequest({ host: "127.0.0.1", port, path, agent }, (response) => {
          response.resume();
          response.on("end", () => resolve(`http ${response.statusCode}`));
        });
        request.on("error", reject);
        request.end();
      }),
    close: () => agent.destroy(),
  };
}

/** One Kepler request per connection, as Kepler 0.7-0.9 dials: "socket busy" when the reply says so. */
export function socketDoor(path: string, request: string): { call: () => Promise<LightOutcome>; close: () => void } {
  return {
    call: () =>
      new Promise((resolve, reject) => {
        const socket = connectSocket(path);
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("error", reject);
        socket.on("close", () => {
          const reply = Buffer.concat(chunks).toString("utf8");
          resolve(reply.includes('"server busy') ? "socket busy" : reply === "" ? "socket closed" : "socket answered");
        });
        socket.on("connect", () => socket.write(request));
      }),
    close: () => undefined,
  };
}
