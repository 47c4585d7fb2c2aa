// The unix socket Kepler's estimator sidecar mode dials (kepler-collector §1, kepler-model-server §8):
// one JSON PowerRequest per connection, one response written at once, then the socket is ended.
// Parsing and encoding live in domain/; this file only moves bytes and applies the limits. Each request
// is one call of the kit's call pipeline (logging, metrics, admission, deadline; the error table's socket
// reply). Fairness: a whole request must arrive within a deadline from its first byte, and when every
// slot is taken a newcomer evicts the oldest connection still sending, so trickling clients cannot lock
// Kepler out.
import { lstat, unlink } from "node:fs/promises";
import { type Server, type Socket, connect, createServer } from "node:net";
import { FailedPreconditionError, InvalidInputError, UnavailableError } from "../domain/errors.js";
import type { CallPipeline } from "../kit/calls/call-pipeline.js";
import type { AdmissionPolicy } from "../kit/calls/admission.js";
import { createCallPipeline } from "../kit/calls/create-call-pipeline.js";
import { createTurnGate } from "../kit/calls/turn-gate.js";
import { InboundCall } from "../kit/calls/inbound-call.js";
import type { CallObservation } from "../kit/observe/call-observation.js";
import type { Logger } from "../kit/observe/logger.js";
import { listenFailure } from "../kit/transport/listen-failure.js";
import type { EstimateInput } from "./domain/estimate-power.js";
import { DEFAULT_ESTIMATOR_SOCKET_LIMITS, type EstimatorSocketLimits } from "./estimator-socket-limits.js";
import { JsonObjectFraming } from "./domain/json-object-framing.js";
import { declaredRowCount, decodeKeplerPowerRequest } from "./domain/kepler-power-request.js";
import { type KeplerPowers, encodeErrorResponse, encodePowerResponse } from "./domain/kepler-power-response.js";

export { DEFAULT_ESTIMATOR_SOCKET_LIMITS, type EstimatorSocketLimits };

export interface EstimatorSocketOptions {
  path: string;
  /** Predicts with the estimator's cache (the same one gRPC Estimate uses). */
  estimate: (input: EstimateInput) => Promise<KeplerPowers>;
  logger: Logger;
  limits?: Partial<EstimatorSocketLimits>;
  /** Admission shared with the estimator's gRPC server (its priority slots); default: every request admitted. */
  admission?: AdmissionPolicy;
  /** Whether calls are measured and traced, as on the gRPC server; default: measured, not traced. */
  observation?: CallObservation;
}

// A socket request as the call pipeline sees it: open (Kepler sends no token), no headers.
class SocketInboundCall extends InboundCall {
  constructor(private readonly socketPath: string) {
    super("socket", "socket", "socket", "open");
  }
  header(): undefined {
    return undefined;
  }
  headerNames(): string[] {
    return [];
  }
  peer(): string {
    return this.socketPath;
  }
}

function estimateWith(this: EstimatorSocketOptions, input: EstimateInput): Promise<KeplerPowers> {
  return this.estimate(input);
}

/** A listening socket; close() stops it, drops open connections and removes the socket file. */
export interface EstimatorSocketHandle {
  readonly path: string;
  close(): Promise<void>;
}

/** Whether something accepts connections on `path` (a live server, not a stale file). */
function isAnswering(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/** Removes a stale socket file left by a crashed estimator; refuses to take over a live one or a non-socket. */
async function clearStaleSocket(path: string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing === undefined) return;
  if (!existing.isSocket())
    throw new InvalidInputError("--estimator-socket", `${path} exists and is not a socket; not replacing it`);
  if (await isAnswering(path))
    throw new FailedPreconditionError(
      `--estimator-socket: another server is listening on ${path}; stop it or choose another path`,
    );
  await unlink(path);
}

// A connection still sending its request this long after it opened may be evicted for a newcomer.
const STALLED_MS = 100;
// About 2 ms of estimates: what a gRPC Estimate read during a socket burst waits for at most (the
// requests waiting are bounded by the connection limit).
const ANSWERS_PER_TURN = 4;

/** Starts listening on `options.path` (see the file comment). */
export async function startEstimatorSocket(options: EstimatorSocketOptions): Promise<EstimatorSocketHandle> {
  const limits = { ...DEFAULT_ESTIMATOR_SOCKET_LIMITS, ...options.limits };
  const { logger, path } = options;
  await clearStaleSocket(path);
  // Open connections, oldest first, and whether each is still sending its request (evictable).
  const connections = new Map<Socket, { sending: boolean; openedMs: number }>();
  // Connections given the busy reply, until their clients close.
  const refused = new Set<Socket>();
  // A burst of complete requests is answered ANSWERS_PER_TURN per event-loop turn (turn-gate.ts).
  const answersPerTurn = createTurnGate(ANSWERS_PER_TURN);
  // Kepler sets no deadline of its own: past this an error response is sent, so the collector never hangs.
  const pipeline: CallPipeline = createCallPipeline({
    service: "estimator",
    logger,
    admission: options.admission,
    observation: options.observation,
    deadline: {
      ms: limits.estimateDeadlineMs,
      expired: (ms) => new UnavailableError("estimator", `no estimate within ${ms} ms (model registry slow or unreachable)`),
    },
  });

  /** The response text for one complete request. */
  async function answer(requestText: string): Promise<string> {
    let request: unknown;
    try {
      request = JSON.parse(requestText);
    } catch (error) {
      return encodeErrorResponse(`request: not valid JSON (${(error as Error).message})`, 0);
    }
    const rowCount = declaredRowCount(request);
    const call = new SocketInboundCall(path);
    let powersAsList = false;
    try {
      const waiting = pipeline.start(call);
      if (waiting !== undefined) await waiting;
      const decoded = decodeKeplerPowerRequest(request);
      powersAsList = decoded.powersAsList;
      const powers = await pipeline.run(call, estimateWith, options, decoded.input);
      const encoded = encodePowerResponse(powers, { powersAsList });
      pipeline.succeed(call);
      logger.debug(
        {
          rows: rowCount,
          bytes: encoded.text.length,
          precision: encoded.precision,
          ms: Math.round(performance.now() - call.startedMs),
        },
        "socket estimate",
      );
      return encoded.text;
    } catch (error) {
      // The table's socket reply: a refusal's reason, or a fixed message for a bug (logged by the pipeline).
      const failure = pipeline.fail(call, error);
      return encodeErrorResponse(failure.message, rowCount, { powersAsList });
    }
  }

  // Makes room for a newcomer: the oldest connection still sending its request after STALLED_MS is
  // dropped; false when none is (a burst of fresh requests is not evicted for another one).
  function evictStalled(): boolean {
    const now = performance.now();
    for (const [socket, state] of connections) {
      if (!state.sending || now - state.openedMs < STALLED_MS) continue;
      logger.warn({ connections: connections.size }, "estimator socket full; dropping the oldest unfinished request");
      state.sending = false;
      socket.destroy();
      connections.delete(socket);
      return true;
    }
    return false;
  }

  function handle(socket: Socket): void {
    if (connections.size >= limits.maxConnections && !evictStalled()) {
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
      return;
    }
    const state = { sending: true, openedMs: performance.now() };
    connections.set(socket, state);
    socket.once("close", () => connections.delete(socket));
    socket.on("error", (error) => logger.debug({ reason: error.message }, "socket client error"));
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
      logger.debug({ received, idleTimeoutMs: limits.idleTimeoutMs }, "socket client idle; closing");
      socket.destroy();
    });
    socket.setTimeout(limits.idleTimeoutMs);
    socket.on("data", (chunk: Buffer) => {
      if (done) return;
      if (received === 0) {
        socket.setTimeout(0);
        requestTimer = setTimeout(() => {
          logger.debug({ received, requestDeadlineMs: limits.requestDeadlineMs }, "socket request unfinished; closing");
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
      const text = Buffer.concat(chunks).subarray(0, framed.end).toString("utf8");
      const answerNow = () => void answer(text).then(respond);
      const waiting = answersPerTurn.pass();
      if (waiting === undefined) answerNow();
      else void waiting.then(answerNow);
    });
    socket.on("end", () => {
      if (!done) respond(encodeErrorResponse("request: the connection ended before a whole JSON object was sent", 0));
    });
    socket.once("close", () => clearTimeout(requestTimer));
  }

  const server: Server = createServer({ allowHalfOpen: true }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(listenFailure("estimator socket", path, error)));
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => logger.error({ err: error }, "estimator socket error"));
  logger.info({ path }, "estimator socket listening");

  let closing: Promise<void> | undefined;
  return {
    path,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of [...connections.keys(), ...refused]) socket.destroy();
        await closed;
        // net removes the file when it closes a server it bound; this covers a file that lingers anyway.
        await unlink(path).catch(() => undefined);
      })();
      return closing;
    },
  };
}
