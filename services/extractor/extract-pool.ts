// The extractor's parsing and table building on a pool of worker threads, so a large response does not
// stall the other RPCs of the process; the response bytes move to the worker without a copy.
import { createWorkerPool, workerModule } from "../kit/workers/worker-pool.js";
import { ownedBuffers } from "../kit/workers/worker-tasks.js";
import { type ExtractTask, type ExtractTaskResult, runExtractTask } from "./domain/extract-task.js";

export interface ExtractRunner {
  run(task: ExtractTask): Promise<ExtractTaskResult>;
  close(): Promise<void>;
}

/** A runner over `threads` workers; 0 runs tasks on the main thread. */
export function createExtractRunner(threads: number): ExtractRunner {
  if (threads === 0) return { run: async (task) => runExtractTask(task), close: async () => {} };
  const pool = createWorkerPool<ExtractTask, ExtractTaskResult>({
    entry: workerModule("extract-worker", import.meta.url),
    size: threads,
    name: "extractor",
  });
  return {
    run: (task) => pool.run(task, { transfer: "bytes" in task.input ? ownedBuffers([task.input.bytes]) : [] }),
    close: () => pool.close(),
  };
}
