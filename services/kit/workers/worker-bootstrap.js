// First module of every worker thread (the pool's, the estimator socket's): lowers this thread's priority
// (workerData.nice, default 10), registers tsx's loader in this thread when running from the TypeScript
// sources (a worker does not inherit the parent's `--import tsx`; the bundle's worker modules need none),
// then loads the module named in workerData.runtime (the pool's runtime imports each task module when a
// task first needs it). Plain JavaScript, so the bundle (dist/) carries a copy of it as is.
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { workerData } from "node:worker_threads";

// Nice 10 for the pool: the event loop (health, Estimate) wins the CPU whenever both want it, also while
// this thread compiles its modules. Linux keeps a nice value per thread, addressed by the thread id that
// /proc/thread-self names; elsewhere, or when not permitted, the thread keeps the process's priority.
try {
  const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
  if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, workerData.nice ?? 10);
} catch {
  // Not Linux, or no permission: normal priority.
}

if (workerData.runtime.endsWith(".ts")) (await import("tsx/esm/api")).register();
await import(workerData.runtime);
