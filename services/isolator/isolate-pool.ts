// The isolator's table work on a pool of worker threads (none, min and profile isolators: pure functions
// of the table), so a large container table does not stall the other RPCs of the process.
import type { DataTable } from "../domain/data-table.js";
import { createWorkerPool, workerModule } from "../kit/workers/worker-pool.js";
import { type IsolateOptions, type IsolationResult, isolate } from "./domain/isolate.js";

/** One isolation as it crosses to a worker. */
export interface IsolateTask {
  table: DataTable;
  options: IsolateOptions;
}

export interface IsolateRunner {
  isolate(table: DataTable, options: IsolateOptions): Promise<IsolationResult>;
  close(): Promise<void>;
}

/** A runner over `threads` workers; 0 isolates on the main thread. */
export function createIsolateRunner(threads: number): IsolateRunner {
  if (threads === 0) return { isolate: (table, options) => isolate(table, options), close: async () => {} };
  const pool = createWorkerPool<IsolateTask, IsolationResult>({
    entry: workerModule("isolate-worker", import.meta.url),
    size: threads,
    name: "isolator",
  });
  return {
    // The table arrived over gRPC for this call alone: copied once to the worker (its columns may share
    // a decode buffer, so nothing is transferred from here).
    isolate: (table, options) => pool.run({ table, options }),
    close: () => pool.close(),
  };
}
