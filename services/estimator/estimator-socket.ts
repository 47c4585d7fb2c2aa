// The unix socket Kepler's estimator sidecar mode dials (kepler-collector §1, kepler-model-server §8):
// one JSON PowerRequest per connection, one response written at once, then the socket is ended.
// Parsing and encoding live in domain/. The connections live on a thread of their own
// (estimator-socket-thread.ts: the limits, fairness, reading and writing); each complete request comes
// here, to the estimator's loop, and is one call of the kit's call pipeline (logging, metrics,
// admission, deadline; the error table's socket reply).
import { lstat, unlink } from "node:fs/promises";
import { connect } from "node:net";
import { Worker } from "node:worker_threads";
import { FailedPreconditionError, InvalidInputError, UnavailableError } from "../domain/errors.js";
import type { CallPipeline } from "../kit/calls/call-pipeline.js";
import type { AdmissionPolicy } from "../kit/calls/admission.js";
import { createCallPipeline } from "../kit/calls/create-call-pipeline.js";
import { createTurnGate } from "../kit/calls/turn-gate.js";
import { InboundCall } from "../kit/calls/inbound-call.js";
import type { CallObservation } from "../kit/observe/call-observation.js";
import type { Logger } from "../kit/observe/logger.js";
import { listenFailure } from "../kit/transport/listen-failure.js";
import { WORKER_BOOTSTRAP, workerModule } from "../kit/workers/worker-pool.js";
import type { EstimateInput } from "./domain/estimate-power.js";
import { DEFAULT_ESTIMATOR_SOCKET_LIMITS, type EstimatorSocketLimits } from "./estimator-socket-limits.js";
import type { FromSocketThread, SocketThreadData, ToSocketThread } from "./estimator-socket-messages.js";
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
  /** The thread holding the connections (tests end it to see it replaced). */
  readonly thread: Worker;
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

// About 2 ms of estimates: what a gRPC Estimate read during a socket burst waits for at most (the
// requests waiting are bounded by the connection limit).
const ANSWERS_PER_TURN = 4;
const THREAD_MODULE = workerModule("estimator-socket-thread", import.meta.url);
// A thread that ended is replaced after this long (a thread that keeps failing does not spin).
const RESTART_DELAY_MS = 1000;

/** Starts the socket thread listening on `path`; resolves once it listens. */
async function startSocketThread(data: SocketThreadData): Promise<Worker> {
  // Nice 5: the estimator's loop (gRPC Estimate, the answers) wins the CPU over a flood's connections,
  // and these win it over training fits (nice 10, worker-pool.ts).
  const worker = new Worker(WORKER_BOOTSTRAP, {
    workerData: { runtime: THREAD_MODULE.href, nice: 5, ...data },
    name: "kepler-model-socket",
  });
  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: FromSocketThread) => {
      if (message.kind === "listening") return done(resolve);
      if (message.kind === "listen-failed")
        done(() =>
          reject(listenFailure("estimator socket", data.path, Object.assign(new Error(message.message), { code: message.code }))),
        );
    };
    const onExit = (code: number) =>
      done(() => reject(listenFailure("estimator socket", data.path, new Error(`socket thread exited (${code})`))));
    const done = (settle: () => void) => {
      worker.off("message", onMessage);
      worker.off("exit", onExit);
      settle();
    };
    worker.on("message", onMessage);
    worker.on("exit", onExit);
  });
  return worker;
}

/** Starts listening on `options.path` (see the file comment). */
export async function startEstimatorSocket(options: EstimatorSocketOptions): Promise<EstimatorSocketHandle> {
  const limits = { ...DEFAULT_ESTIMATOR_SOCKET_LIMITS, ...options.limits };
  const { logger, path } = options;
  await clearStaleSocket(path);
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

  // The thread, and a replacement if it ever ends on its own (a bug there must not leave Kepler unanswered).
  let worker: Worker;
  let closing: Promise<void> | undefined;
  let closed: (() => void) | undefined;
  const send = (message: ToSocketThread) => worker.postMessage(message);
  const onMessage = (message: FromSocketThread) => {
    if (message.kind === "request") {
      const answerNow = () => void answer(message.text).then((text) => send({ kind: "answer", id: message.id, text }));
      const waiting = answersPerTurn.pass();
      if (waiting === undefined) answerNow();
      else void waiting.then(answerNow);
    } else if (message.kind === "log") logger[message.level](message.fields, message.msg);
    else if (message.kind === "closed") closed?.();
  };
  // Whether the current thread has ended (its exit seen); a restart is then under way.
  let ended = false;
  const run = async (): Promise<void> => {
    const started = await startSocketThread({ path, limits });
    if (closing !== undefined) {
      await started.terminate();
      return;
    }
    [worker, ended] = [started, false];
    worker.on("message", onMessage);
    worker.on("error", (error) => logger.error({ err: error }, "estimator socket thread failed"));
    worker.once("exit", (code) => {
      ended = true;
      if (closing !== undefined) return;
      logger.error({ code, path }, "estimator socket thread ended; starting another in 1 s");
      setTimeout(() => {
        if (closing !== undefined) return;
        void clearStaleSocket(path)
          .then(run)
          .catch((error: unknown) => logger.error({ err: error, path }, "estimator socket cannot restart"));
      }, RESTART_DELAY_MS);
    });
  };
  await run();
  logger.info({ path }, "estimator socket listening");

  return {
    path,
    get thread() {
      return worker;
    },
    close() {
      closing ??= (async () => {
        if (!ended) {
          const stopped = new Promise<void>((resolve) => (closed = resolve));
          send({ kind: "close" });
          await Promise.race([stopped, new Promise((resolve) => worker.once("exit", resolve))]);
          await worker.terminate();
        }
        // net removes the file when it closes a server it bound; this covers a file that lingers anyway.
        await unlink(path).catch(() => undefined);
      })();
      return closing;
    },
  };
}
