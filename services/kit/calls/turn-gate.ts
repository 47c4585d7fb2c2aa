// A gate that lets at most `perTurn` pieces of work start in one event-loop turn; the rest wait, in
// order, for later turns. The doors whose requests each arrive on a connection of their own (HTTP routes,
// the estimator's socket) start their calls through one: a burst read in one poll is served a few per
// turn, so the calls read between those turns (a gRPC Estimate) are not held behind the whole burst,
// answers and refusals alike (bench/overload).
export interface TurnGate {
  /** Undefined when the work may start now; otherwise a promise that resolves in the turn it may. */
  pass(): void | Promise<void>;
}

/** At most `perTurn` starts per turn; past `maxWaiting` waiting, work starts at once (admission then decides). */
export function createTurnGate(perTurn: number, maxWaiting = Number.POSITIVE_INFINITY): TurnGate {
  let started = 0;
  let scheduled = false;
  const waiting: Array<() => void> = [];
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(nextTurn);
  };
  function nextTurn(): void {
    scheduled = false;
    started = 0;
    while (waiting.length > 0 && started < perTurn) {
      started++;
      waiting.shift()!();
    }
    if (started > 0) schedule();
  }
  return {
    pass() {
      if (started < perTurn && waiting.length === 0) {
        started++;
        schedule();
        return;
      }
      if (waiting.length >= maxWaiting) return;
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        schedule();
      });
    },
  };
}
