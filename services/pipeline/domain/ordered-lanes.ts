// Work side by side, report in order: each lane's effects (progress, results, counters) run at once while
// it is the earliest unfinished lane, and are queued otherwise, then replayed when the lanes before it
// finish. What a caller observes is the same sequence as running the lanes one after the other.

export interface OrderedLanes {
  /** Runs `effect` now when `lane` is the earliest unfinished one, else after every earlier lane finished. */
  report(lane: number, effect: () => void): void;
  /** Marks `lane` done: queued effects of the lanes after it that are now first run. */
  finish(lane: number): void;
}

export function createOrderedLanes(count: number): OrderedLanes {
  const queued: Array<Array<() => void>> = Array.from({ length: count }, () => []);
  const finished = new Array<boolean>(count).fill(false);
  let head = 0;
  return {
    report(lane, effect) {
      if (lane === head) effect();
      else queued[lane]!.push(effect);
    },
    finish(lane) {
      finished[lane] = true;
      while (head < count && finished[head]) {
        head++;
        if (head < count) for (const effect of queued[head]!.splice(0)) effect();
      }
    },
  };
}

/**
 * Runs `jobs` with at most `width` started and unfinished at once, in index order, and settles when all
 * have; rejects with the first failure (by index) once every started job settled.
 */
export async function runWindowed(jobs: ReadonlyArray<() => Promise<void>>, width: number): Promise<void> {
  const settled: Array<Promise<PromiseSettledResult<void>>> = [];
  for (let index = 0; index < jobs.length; index++) {
    if (index >= width) await settled[index - width];
    settled.push(
      jobs[index]!().then(
        () => ({ status: "fulfilled", value: undefined }),
        (reason: unknown) => ({ status: "rejected", reason }),
      ),
    );
  }
  for (const outcome of await Promise.all(settled)) if (outcome.status === "rejected") throw outcome.reason;
}
