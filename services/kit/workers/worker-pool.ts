// A fixed-size pool of worker threads for CPU-heavy domain work (fits, extraction, isolation), so the event
// loop that answers health and Estimate stays free. The threads start with the pool (its service), each
// with its own wasm-core instance, and import a task module on its first task; tasks queue in FIFO order.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { assetUrl } from "../files/asset-url.js";
import type { ConfigKey } from "../config/config-schema.js";
import { reviveError } from "./worker-errors.js";
import type { ReplyMessage } from "./worker-tasks.js";

/** The pool size `--worker-threads -1` (the default) stands for: the machine's cores, at least 1. */
const AVAILABLE_CORES = -1;

/**
 * `--worker-threads`: how many CPU-heavy tasks a service runs at once on the process's worker threads; 0
 * runs them on the main thread. The default
 * is a sentinel rather than the core count, so generated docs and config tables read the same everywhere.
 */
export const workerThreadsKey: ConfigKey<number> = {
  type: "integer",
  default: AVAILABLE_CORES,
  env: "KEPLER_MODEL_WORKER_THREADS",
  flag: "worker-threads",
  description:
    "How many CPU-heavy tasks (training fits, extraction, isolation) a service runs at once on worker threads, which the services of one process share, so health and Estimate keep answering during a pipeline run; -1 (the default): the number of available cores; 0 runs that work on the main thread.",
  check: (value) =>
    Number.isInteger(value) && value >= -1 && value <= 256 ? undefined : `expected -1 (available cores) or 0-256, got ${value}`,
};

export interface WorkerPool<T, R> {
  readonly size: number;
  /** Runs one task on the next free worker; a task still queued when `signal` aborts is dropped (rejects). */
  run(task: T, options?: { transfer?: ArrayBuffer[]; signal?: AbortSignal }): Promise<R>;
  /** Stops this pool: its queued and running tasks reject; the threads end with the process's last pool. */
  close(): Promise<void>;
}

interface PoolState {
  readonly name: string;
  readonly entry: string;
  readonly size: number;
  running: number;
  closed: boolean;
}

interface Pending {
  id: number;
  pool: PoolState;
  task: unknown;
  transfer: ArrayBuffer[];
  signal?: AbortSignal;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  running?: Pending;
}

/** The first module of every worker thread (worker-bootstrap.js); workerData.runtime names the module it loads. */
export const WORKER_BOOTSTRAP = new URL("./worker-bootstrap.js", import.meta.url);
const RUNTIME = workerModule("worker-runtime", import.meta.url);

/**
 * The worker module `name` beside the calling module (`from`: its import.meta.url): `<name>.ts` when
 * running from the TypeScript sources, `<name>.mjs` in the bundle (npm run build:cli puts the worker
 * entries and the code that starts them in the same folder, dist/).
 */
export function workerModule(name: string, from: string): URL {
  return assetUrl(from, `./${name}.ts`, `${name}.mjs`);
}

// The process's worker threads, shared by all its pools (the services of one process): as many threads as
// the largest open pool, each pool running at most its size of tasks at once. One set of threads instead
// of one per service, because starting a thread (its runtime, modules and wasm instance) costs ~0.1 s of
// CPU, more than many tasks do; they start with the first pool, while the process is still starting its
// servers, rather than on the first request's critical path. Tasks are dispatched in the order they were
// submitted.
const threads: Thread[] = [];
const queue: Pending[] = [];
const pools = new Set<PoolState>();
let nextId = 1;

const threadLimit = () => Math.max(0, ...[...pools].map((pool) => pool.size));

function startThread(): Thread {
  const worker = new Worker(WORKER_BOOTSTRAP, { workerData: { runtime: RUNTIME.href }, name: "kepler-model-worker" });
  // Idle workers never keep the process alive; a server in its event loop does, and close() ends them.
  worker.unref();
  const thread: Thread = { worker };
  worker.on("message", (reply: ReplyMessage<unknown>) => {
    const pending = thread.running;
    if (pending === undefined || pending.id !== reply.id) return;
    thread.running = undefined;
    pending.pool.running--;
    if ("error" in reply) pending.reject(reviveError(reply.error));
    else pending.resolve(reply.result);
    dispatch();
  });
  // A worker that dies (out of memory, a crash in its loader) fails its task; a fresh one replaces it.
  const retire = (error: (pool: PoolState) => Error) => {
    const index = threads.indexOf(thread);
    if (index < 0) return;
    threads.splice(index, 1);
    const pending = thread.running;
    thread.running = undefined;
    if (pending !== undefined) {
      pending.pool.running--;
      pending.reject(error(pending.pool));
    }
    dispatch();
  };
  worker.on("error", (error) => retire(() => error));
  worker.on("exit", (code) => retire((pool) => new Error(`${pool.name} worker exited with code ${code}`)));
  threads.push(thread);
  return thread;
}

function dispatch(): void {
  for (let index = 0; index < queue.length;) {
    const pending = queue[index]!;
    if (pending.signal?.aborted === true) {
      queue.splice(index, 1);
      pending.reject(pending.signal.reason);
      continue;
    }
    if (pending.pool.running >= pending.pool.size) {
      index++;
      continue;
    }
    const thread = threads.find((t) => t.running === undefined) ?? (threads.length < threadLimit() ? startThread() : undefined);
    if (thread === undefined) return;
    queue.splice(index, 1);
    thread.running = pending;
    pending.pool.running++;
    thread.worker.postMessage({ id: pending.id, entry: pending.pool.entry, task: pending.task }, pending.transfer);
  }
}

/**
 * Creates a pool of `size` (>= 1, or AVAILABLE_CORES) workers running the task module `entry` (whose
 * default export handles a task); the process's threads grow to `size` now.
 */
export function createWorkerPool<T, R>(requested: { entry: URL; size: number; name: string }): WorkerPool<T, R> {
  const size = requested.size === AVAILABLE_CORES ? Math.max(1, availableParallelism()) : requested.size;
  if (!Number.isInteger(size) || size < 1) throw new Error(`worker pool size must be >= 1, got ${requested.size}`);
  const pool: PoolState = { name: requested.name, entry: requested.entry.href, size, running: 0, closed: false };
  pools.add(pool);
  while (threads.length < threadLimit()) startThread();
  return {
    size,
    run(task, runOptions = {}) {
      if (pool.closed) return Promise.reject(new Error(`${pool.name} worker pool is closed`));
      if (runOptions.signal?.aborted === true) return Promise.reject(runOptions.signal.reason);
      return new Promise<R>((resolve, reject) => {
        queue.push({
          id: nextId++,
          pool,
          task,
          transfer: runOptions.transfer ?? [],
          signal: runOptions.signal,
          resolve: resolve as (result: unknown) => void,
          reject,
        });
        dispatch();
      });
    },
    async close() {
      if (pool.closed) return;
      pool.closed = true;
      pools.delete(pool);
      const stopped = new Error(`${pool.name} worker pool closed`);
      for (let index = queue.length - 1; index >= 0; index--) {
        if (queue[index]!.pool !== pool) continue;
        queue.splice(index, 1)[0]!.reject(stopped);
      }
      // Threads busy with this pool's tasks end (their tasks reject now); the last pool ends them all.
      const ending = threads.filter((thread) => thread.running?.pool === pool || pools.size === 0);
      for (const thread of ending) {
        threads.splice(threads.indexOf(thread), 1);
        if (thread.running !== undefined) {
          thread.running.pool.running--;
          thread.running.reject(stopped);
          thread.running = undefined;
        }
      }
      await Promise.all(ending.map((thread) => thread.worker.terminate()));
      dispatch();
    },
  };
}
