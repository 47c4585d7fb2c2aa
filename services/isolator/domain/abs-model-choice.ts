// The trainer isolator's choice among AbsPower models (reference TrainIsolator.is_better, spec §4.5).

/** The reference's correlation threshold. */
export const CORRELATION_THRESHOLD = 0.7;

/** A model's score: its MAE and the max correlation of the target features with the dynamic power it leaves. */
export interface ModelScore {
  readonly maeWatts: number;
  readonly maxCorrelation: number;
}

/**
 * True when `candidate` beats `current` (reference is_better): the first model always wins; a candidate
 * correlating at least `threshold` wins on lower MAE, or on equal MAE with higher correlation; when both
 * correlate below the threshold, a candidate correlating at least as well wins on lower MAE.
 */
export function isBetterModel(
  current: ModelScore | undefined,
  candidate: ModelScore,
  threshold = CORRELATION_THRESHOLD,
): boolean {
  if (current === undefined) return true;
  if (candidate.maxCorrelation >= threshold) {
    if (candidate.maeWatts < current.maeWatts) return true;
    return candidate.maeWatts === current.maeWatts && candidate.maxCorrelation > current.maxCorrelation;
  }
  if (current.maxCorrelation < threshold && candidate.maxCorrelation >= current.maxCorrelation) {
    return candidate.maeWatts < current.maeWatts;
  }
  return false;
}
