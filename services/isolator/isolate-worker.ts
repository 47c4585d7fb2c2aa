// Worker-thread entry of the isolator's pool: runs the none, min and profile isolators on this thread's
// wasm-core instance; the isolated table's columns move back without a copy.
import { ownedBuffers, taskHandler } from "../kit/workers/worker-tasks.js";
import { isolate } from "./domain/isolate.js";
import type { IsolateTask } from "./isolate-pool.js";
import type { IsolationResult } from "./domain/isolate.js";

export default taskHandler<IsolateTask, IsolationResult>(async ({ table, options }) => {
  const result = await isolate(table, options);
  return { result, transfer: ownedBuffers([result.table.values, result.table.timestamps]) };
});
