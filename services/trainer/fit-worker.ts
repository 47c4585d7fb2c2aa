// Worker-thread entry of the trainer's fit pool: runs fitComponents on this thread's wasm-core instance.
import { ownedBuffers, serveWorkerTasks } from "../kit/worker-tasks.js";
import { type FitJob, type FitOutcome, fitComponents } from "./domain/fit-components.js";

serveWorkerTasks<FitJob, FitOutcome>((job) => {
  const outcome = fitComponents(job);
  return { result: outcome, transfer: ownedBuffers(outcome.components.flatMap((c) => [c.testPredictions, c.testTimestamps])) };
});
