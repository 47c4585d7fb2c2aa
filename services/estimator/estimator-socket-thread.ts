// The Kepler socket's connections, on a thread of their own (estimator-socket.ts starts it): accepting,
// reading each request whole under the socket's limits, evicting stalled clients, writing each answer and
// closing. Only a complete request's text crosses to the estimator's event loop, which answers it; so a
// flood of connections costs that loop one message per request instead of its accepts, reads, writes,
// timers and closes, and a gRPC Estimate beside the flood waits for less (bench/overload).
// Fairness: a whole request must arrive within a deadline from its first byte, and when every slot is
// taken a newcomer evicts the oldest connection still sending, so trickling clients cannot lock Kepler out.
import { type Socket, createServer } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { JsonObjectFraming } from "./domain/json-object-framing.js";
import { encodeErrorResponse } from "./domain/kepler-power-response.js";
import type { SocketThreadData, ToSocketThread, FromSocketThread } from "./estimator-socket-messages.js";

// A connection still sending its request this long after it opened may be evicted for a newcomer.
const STALLED_MS = 100;

const port = parentPort!;
const { path, limits } = workerData as SocketThreadData;
const post = (message: FromSocketThread) => port.postMessage(message);
const log = (level: "debug" | "warn" | "error", fields: Record<string, unknown>, msg: string) =>
  post({ kind: "log", level, fields, msg });

// Open connections, oldest first, and whether each is still sending its request (evictable).
const connections = new Map<Socket, { sending: boolean; openedMs: number }>();
// Connections given the busy reply, until their clients close.
const refused = new Set<Socket>();
// Requests sent to the estimator's loop, by id, until their answers come back.
const answering = new Map<number, (text: string) => void>();
let nextId = 1;

// Makes room for a newcomer: the oldest connection still sending its request after STALLED_MS is
// dropped; false when none is (a burst of fresh requests is not evicted for another one).
function evictStalled(): boolean {
  const now = performance.now();
  for (const [socket, state] of connections) {
    if (!state.sending || now - state.openedMs < STALLED_MS) continue;
    log("warn", { connections: connections.size }, "estimator socket full; dropping the oldest unfinished request");
    state.sending = false;
    socket.destroy();
    connections.delete(socket);
    return true;
  }
  return false;
}

function refuseBusy(socket: Socket): void {
  // Every slot holds a request being read or answered: the newcomer gets the busy reply at once. Its
  // bytes are read and dropped: a socket never read never sees its client's FIN, so (half-open
  // allowed) it would stay open for good and hold the server's close().
  refused.add(socket);
  socket.once("close", () => refused.delete(socket));
  socket.on("error", () => undefined);
  socket.on("timeout", () => socket.destroy());
  socket.setTimeout(limits.idleTimeoutMs);
  socket.resume();
  socket.end(encodeErrorResponse(`server busy: ${limits.maxConnections} requests open; retry later`, 0));
}

function handle(socket: Socket): void {
  if (connections.size >= limits.maxConnections && !evictStalled()) return refuseBusy(socket);
  const state = { sending: true, openedMs: performance.now() };
  connections.set(socket, state);
  socket.once("close", () => connections.delete(socket));
  socket.on("error", (error) => log("debug", { reason: error.message }, "socket client error"));
  const framing = new JsonObjectFraming();
  const chunks: Buffer[] = [];
  let received = 0;
  let done = false;
  // From the first byte: the whole request by requestDeadlineMs, however slowly its bytes trickle in.
  let requestTimer: NodeJS.Timeout | undefined;
  const stopSending = () => {
    done = true;
    state.sending = false;
    clearTimeout(requestTimer);
  };
  const respond = (text: string) => {
    stopSending();
    // One write then FIN: Kepler reads once. Later bytes from the client are read and dropped, and a
    // client that never closes its side is dropped after the idle timeout.
    socket.setTimeout(limits.idleTimeoutMs);
    if (!socket.destroyed) socket.end(text);
  };
  socket.on("timeout", () => {
    log("debug", { received, idleTimeoutMs: limits.idleTimeoutMs }, "socket client idle; closing");
    socket.destroy();
  });
  socket.setTimeout(limits.idleTimeoutMs);
  socket.on("data", (chunk: Buffer) => {
    if (done) return;
    if (received === 0) {
      socket.setTimeout(0);
      requestTimer = setTimeout(() => {
        log("debug", { received, requestDeadlineMs: limits.requestDeadlineMs }, "socket request unfinished; closing");
        stopSending();
        socket.destroy();
      }, limits.requestDeadlineMs);
    }
    received += chunk.length;
    if (received > limits.maxRequestBytes) {
      // A request this large holds many rows: answer with the many-row error shape.
      respond(encodeErrorResponse(`request: larger than the ${limits.maxRequestBytes}-byte limit`, 2));
      return;
    }
    chunks.push(chunk);
    const framed = framing.push(chunk);
    if (framed.kind === "incomplete") return;
    stopSending();
    if (framed.kind === "malformed") {
      respond(encodeErrorResponse(`request: not valid JSON (${framed.reason})`, 0));
      return;
    }
    const id = nextId++;
    answering.set(id, respond);
    socket.once("close", () => answering.delete(id));
    post({ kind: "request", id, text: Buffer.concat(chunks).subarray(0, framed.end).toString("utf8") });
  });
  socket.on("end", () => {
    if (!done) respond(encodeErrorResponse("request: the connection ended before a whole JSON object was sent", 0));
  });
  socket.once("close", () => clearTimeout(requestTimer));
}

const server = createServer({ allowHalfOpen: true }, handle);
server.once("error", (error: NodeJS.ErrnoException) =>
  post({ kind: "listen-failed", message: error.message, ...(error.code === undefined ? {} : { code: error.code }) }),
);
server.listen(path, () => {
  server.removeAllListeners("error");
  server.on("error", (error) => log("error", { err: error.message }, "estimator socket error"));
  post({ kind: "listening" });
});

port.on("message", (message: ToSocketThread) => {
  if (message.kind === "answer") {
    const respond = answering.get(message.id);
    answering.delete(message.id);
    respond?.(message.text);
    return;
  }
  // close: stop accepting, drop what is open, then say so (the estimator ends this thread).
  server.close(() => post({ kind: "closed" }));
  for (const socket of [...connections.keys(), ...refused]) socket.destroy();
});
