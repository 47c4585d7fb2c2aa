// Worker-thread entry of the trainer's fit pool: runs fitComponents on this thread's wasm-core instance.
// A trainer registered outside the built-ins is imported here on first use (its module registers it).
import { ownedBuffers, taskHandler } from "../kit/workers/worker-tasks.js";
import { type FitJob, type FitOutcome, fitComponents } from "./domain/fit-components.js";
import { findTrainer } from "./domain/trainer-registry.js";

export default taskHandler<FitJob, FitOutcome>(async (job) => {
  if (job.trainerModule !== undefined && findTrainer(job.trainerName) === undefined) await import(job.trainerModule);
  const outcome = fitComponents(job);
  const arrays: ArrayBufferView[] = outcome.components.flatMap((c) => [c.testPredictions, c.testTimestamps]);
  if (outcome.archive !== undefined) arrays.push(...outcome.archive.files.map((file) => file.data));
  if (outcome.archive?.zip !== undefined) arrays.push(outcome.archive.zip);
  return { result: outcome, transfer: ownedBuffers(arrays) };
});
