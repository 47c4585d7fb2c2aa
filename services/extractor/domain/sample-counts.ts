// The counts every summary of a response gives per metric, query, feature or feature group.

/** How many series and samples there are, and how many samples are > 0. */
export interface SampleCounts {
  readonly seriesCount: number;
  readonly sampleCount: number;
  /** Samples > 0 (the reference's `>0` column; its "non-zero" count for counters). */
  readonly positiveSampleCount: number;
}
