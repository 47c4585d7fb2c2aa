// First module of every pool worker: registers tsx's loader in this thread (sources are TypeScript and a
// worker does not inherit the parent's `--import tsx`), then loads the task module named in workerData.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
