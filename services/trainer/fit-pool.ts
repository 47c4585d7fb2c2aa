// The trainer's fits on a pool of worker threads: independent trainer x node type fits run in parallel
// while the main thread keeps answering RPCs. The tables are copied to each worker (all trainers of a node
// type share them); the predictions come back by transfer.
import { createWorkerPool, type WorkerPool, workerModule } from "../kit/workers/worker-pool.js";
import { type ComponentFitter, type FitJob, type FitOutcome, inThreadFitter } from "./domain/fit-components.js";

/** A fitter plus the pool behind it (closed with the server). */
export interface PooledFitter extends ComponentFitter {
  close(): Promise<void>;
}

/** A fitter over `threads` workers; 0 fits on the main thread (nothing to close). */
export function createFitPool(threads: number): PooledFitter {
  if (threads === 0) return { ...inThreadFitter, close: async () => {} };
  const pool: WorkerPool<FitJob, FitOutcome> = createWorkerPool({
    entry: workerModule("fit-worker", import.meta.url),
    size: threads,
    name: "trainer-fit",
  });
  return {
    concurrency: pool.size,
    fit: (job, signal) => pool.run(job, { signal }),
    close: () => pool.close(),
  };
}
