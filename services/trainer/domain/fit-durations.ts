// How long each trainer's fits took, per training row, and how long publishing a result took: the trainer
// starts fits in the order that lets it publish soonest. Results are published one after another in
// trainer order, so result k is wanted about k publishes after the next one; a fit should start by then
// minus its own expected time. Without publishing this is longest first (the last fit to finish is not a
// long one started late: on 2 workers, SVR or Logistic started last would add their whole time); with
// publishing, a short fit near the head of the list is not left to the end, where every publish after it
// would wait for it. Only the order of starting changes; results are reported in trainer order whatever
// order the fits ran in.

/** Fit times per trainer, in milliseconds per training row, smoothed over the fits seen. */
export class FitDurations {
  private readonly perRow = new Map<string, number>();
  private publishMs: number | undefined;

  /** Records a fit of `trainerName` on `rows` training rows that took `ms` (on the thread that ran it). */
  record(trainerName: string, rows: number, ms: number): void {
    if (!(rows > 0) || !(ms >= 0)) return;
    const observed = ms / rows;
    const before = this.perRow.get(trainerName);
    this.perRow.set(trainerName, before === undefined ? observed : (before + observed) / 2);
  }

  /** The expected time of a fit on `rows` rows; 0 for a trainer not seen yet (started in list order). */
  expectedMs(trainerName: string, rows: number): number {
    return (this.perRow.get(trainerName) ?? 0) * rows;
  }

  /** Records the time one result took to publish (its archive and checkpoints). */
  recordPublish(ms: number): void {
    if (!(ms >= 0)) return;
    this.publishMs = this.publishMs === undefined ? ms : (this.publishMs + ms) / 2;
  }

  /** The expected time to publish a result; 0 before any was seen. */
  expectedPublishMs(): number {
    return this.publishMs ?? 0;
  }
}

/**
 * The order to start the fits `waiting` (job indices) in, when `next` is the next result to publish:
 * by the time each should start to be done when its turn to publish comes, `(k - next) * publishMs -
 * expected(k)`, earliest first; ties in list order.
 */
export function fitStartOrder(
  waiting: readonly number[],
  next: number,
  expected: (k: number) => number,
  publishMs: number,
): number[] {
  const startBy = (k: number) => (k - next) * publishMs - expected(k);
  return [...waiting].sort((a, b) => startBy(a) - startBy(b) || a - b);
}

/** What this process has seen (trainModels' default). */
export const processFitDurations = new FitDurations();
