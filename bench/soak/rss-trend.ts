// Whether a process's resident memory stayed flat over a soak: after a warm-up, the median of the last
// third of the samples against the median of the first third.

/** One RSS reading, seconds since the load started. */
export interface RssSample {
  readonly atSeconds: number;
  readonly rssBytes: number;
}

/** The verdict and the numbers behind it. */
export interface RssTrend {
  readonly firstThirdBytes: number;
  readonly lastThirdBytes: number;
  /** lastThirdBytes / firstThirdBytes. */
  readonly ratio: number;
  readonly flat: boolean;
  /** Samples taken after the warm-up and compared (fewer than 3 gives no verdict). */
  readonly comparedSamples: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Compares the last third of the samples after `warmupSeconds` with the first third; flat when within `maxGrowth`. */
export function rssTrend(samples: readonly RssSample[], warmupSeconds: number, maxGrowth = 0.15): RssTrend {
  const steady = samples.filter((sample) => sample.atSeconds >= warmupSeconds).map((sample) => sample.rssBytes);
  const third = Math.max(1, Math.floor(steady.length / 3));
  const firstThirdBytes = median(steady.slice(0, third));
  const lastThirdBytes = median(steady.slice(-third));
  const ratio = lastThirdBytes / firstThirdBytes;
  return {
    firstThirdBytes,
    lastThirdBytes,
    ratio,
    flat: steady.length >= 3 && ratio <= 1 + maxGrowth,
    comparedSamples: steady.length,
  };
}
