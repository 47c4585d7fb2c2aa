// Worker-thread entry of the extractor's pool: parses and extracts on this thread's wasm-core instance;
// the table's packed columns move back to the caller without a copy.
import { ownedBuffers, taskHandler } from "../kit/workers/worker-tasks.js";
import { type ExtractTask, type ExtractTaskResult, runExtractTask } from "./domain/extract-task.js";

export default taskHandler<ExtractTask, ExtractTaskResult>((task) => {
  const answer = runExtractTask(task);
  return { result: answer, transfer: ownedBuffers([answer.result.table.values, answer.result.table.timestamps]) };
});
