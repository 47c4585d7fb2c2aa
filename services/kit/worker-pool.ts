// A fixed-size pool of worker threads for CPU-heavy domain work (fits, extraction, isolation), so the event
// loop that answers health and Estimate stays free. Workers start on first use, each loads `entry` (a
// module calling serveWorkerTasks) with its own wasm-core instance; tasks queue in FIFO order.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { assetUrl } from "./asset-url.js";
import type { ConfigKey } from "./config-schema.js";
import { WasmKernelError } from "../../wasm-core/src/index.js";
import { FailedPreconditionError, InvalidInputError, NotFoundError, NotImplementedError } from "../domain/errors.js";
import type { FlatError, ReplyMessage } from "./worker-tasks.js";

/** The pool size `--worker-threads -1` (the default) stands for: the machine's cores, at least 1. */
export const AVAILABLE_CORES = -1;

/**
 * `--worker-threads`: how many worker threads run CPU-heavy work; 0 runs it on the main thread. The default
 * is a sentinel rather than the core count, so generated docs and config tables read the same everywhere.
 */
export const workerThreadsKey: ConfigKey<number> = {
  type: "integer",
  default: AVAILABLE_CORES,
  env: "KEPLER_MODEL_WORKER_THREADS",
  flag: "worker-threads",
  description:
    "Worker threads per service for CPU-heavy work (training fits, extraction), so health and Estimate keep answering during a pipeline run; -1 (the default): the number of available cores; 0 runs that work on the main thread.",
  check: (value) =>
    Number.isInteger(value) && value >= -1 && value <= 256 ? undefined : `expected -1 (available cores) or 0-256, got ${value}`,
};

/** A task failed inside a worker: carries the worker-side error's name and message. */
export class WorkerTaskError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
    this.name = errorName;
  }
}

/** Rebuilds a domain error thrown in a worker, so it maps to the same gRPC status as on the main thread. */
export function reviveError(error: FlatError): Error {
  const { field, reason, what, kernel, status } = error.fields;
  if (error.name === "InvalidInputError" && typeof field === "string" && typeof reason === "string")
    return new InvalidInputError(field, reason);
  if (error.name === "NotFoundError" && typeof what === "string") return new NotFoundError(what);
  // A kernel refusing the data maps to INVALID_ARGUMENT, as on the main thread.
  if (error.name === "WasmKernelError" && typeof kernel === "string" && typeof status === "number")
    return new WasmKernelError(kernel, status);
  if (error.name === "FailedPreconditionError") return new FailedPreconditionError(error.message);
  if (error.name === "NotImplementedError") return new NotImplementedError(error.message);
  return new WorkerTaskError(error.name, error.message);
}

export interface WorkerPool<T, R> {
  readonly size: number;
  /** Runs one task on the next free worker; a task still queued when `signal` aborts is dropped (rejects). */
  run(task: T, options?: { transfer?: ArrayBuffer[]; signal?: AbortSignal }): Promise<R>;
  /** Terminates every worker; queued and running tasks reject. */
  close(): Promise<void>;
}

interface Pending<T, R> {
  id: number;
  task: T;
  transfer: ArrayBuffer[];
  signal?: AbortSignal;
  resolve(result: R): void;
  reject(error: unknown): void;
}

interface Slot<T, R> {
  worker: Worker;
  running?: Pending<T, R>;
}

const BOOTSTRAP = new URL("./worker-bootstrap.js", import.meta.url);

/**
 * The worker module `name` beside the calling module (`from`: its import.meta.url): `<name>.ts` when
 * running from the TypeScript sources, `<name>.mjs` in the bundle (npm run build:cli puts the worker
 * entries and the code that starts them in the same folder, dist/).
 */
export function workerModule(name: string, from: string): URL {
  return assetUrl(from, `./${name}.ts`, `${name}.mjs`);
}

/**
 * Creates a pool of `size` (>= 1, or AVAILABLE_CORES) workers running `entry`; none start until the first
 * task.
 */
export function createWorkerPool<T, R>(requested: { entry: URL; size: number; name: string }): WorkerPool<T, R> {
  const size = requested.size === AVAILABLE_CORES ? Math.max(1, availableParallelism()) : requested.size;
  if (!Number.isInteger(size) || size < 1) throw new Error(`worker pool size must be >= 1, got ${requested.size}`);
  const options = { ...requested, size };
  const slots: Slot<T, R>[] = [];
  const queue: Pending<T, R>[] = [];
  let nextId = 1;
  let closed = false;

  const startWorker = (): Slot<T, R> => {
    const worker = new Worker(BOOTSTRAP, { workerData: { entry: options.entry.href }, name: options.name });
    // Idle workers never keep the process alive; a server in its event loop does, and close() ends them.
    worker.unref();
    const slot: Slot<T, R> = { worker };
    worker.on("message", (reply: ReplyMessage<R>) => {
      const pending = slot.running;
      if (pending === undefined || pending.id !== reply.id) return;
      slot.running = undefined;
      if ("error" in reply) pending.reject(reviveError(reply.error));
      else pending.resolve(reply.result);
      dispatch();
    });
    // A worker that dies (out of memory, a crash in its loader) fails its task; a fresh one replaces it.
    const retire = (error: Error) => {
      const index = slots.indexOf(slot);
      if (index < 0) return;
      slots.splice(index, 1);
      slot.running?.reject(error);
      slot.running = undefined;
      if (!closed) dispatch();
    };
    worker.on("error", retire);
    worker.on("exit", (code) => retire(new Error(`${options.name} worker exited with code ${code}`)));
    slots.push(slot);
    return slot;
  };

  const dispatch = () => {
    while (!closed && queue.length > 0) {
      const slot = slots.find((s) => s.running === undefined) ?? (slots.length < options.size ? startWorker() : undefined);
      if (slot === undefined) return;
      const pending = queue.shift() as Pending<T, R>;
      if (pending.signal?.aborted === true) {
        pending.reject(pending.signal.reason);
        continue;
      }
      slot.running = pending;
      slot.worker.postMessage({ id: pending.id, task: pending.task }, pending.transfer);
    }
  };

  return {
    size: options.size,
    run(task, runOptions = {}) {
      if (closed) return Promise.reject(new Error(`${options.name} worker pool is closed`));
      if (runOptions.signal?.aborted === true) return Promise.reject(runOptions.signal.reason);
      return new Promise<R>((resolve, reject) => {
        queue.push({ id: nextId++, task, transfer: runOptions.transfer ?? [], signal: runOptions.signal, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      const stopped = new Error(`${options.name} worker pool closed`);
      for (const pending of queue.splice(0)) pending.reject(stopped);
      const running = slots.splice(0);
      for (const slot of running) slot.running?.reject(stopped);
      await Promise.all(running.map((slot) => slot.worker.terminate()));
    },
  };
}
