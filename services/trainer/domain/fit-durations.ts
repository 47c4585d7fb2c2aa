// How long each trainer's fits took, per training row: the trainer starts the fits it expects to take
// longest first, so the last fit to finish is not a long one started late (on 2 workers, SVR or Logistic
// started last would add their whole time). Only the order of starting changes; results are reported in
// trainer order whatever order the fits ran in.

/** Fit times per trainer, in milliseconds per training row, smoothed over the fits seen. */
export class FitDurations {
  private readonly perRow = new Map<string, number>();

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
}

/** What this process has seen (trainModels' default). */
export const processFitDurations = new FitDurations();
