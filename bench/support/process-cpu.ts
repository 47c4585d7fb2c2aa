// CPU time a process has used, summed over its threads (Linux /proc/<pid>/task/*/schedstat, nanoseconds).
// On a shared machine a server's wall-clock throughput swings with what other processes run, while the
// CPU time it spends per call does much less: benchmarks comparing two servers report both.
import { readdirSync, readFileSync } from "node:fs";

/** Nanoseconds of CPU the process `pid` has run so far, all its live threads together (threads that ended are not counted). */
export function processCpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return total;
}
