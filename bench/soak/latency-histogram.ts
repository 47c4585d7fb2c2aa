// Latencies as counts in log-spaced buckets (1% wide), so client processes can send a soak's worth of
// samples as a few hundred numbers and the parent can merge them exactly before taking percentiles.

const GROWTH = 1.01;
const FLOOR_MS = 0.01;

/** Bucket index -> count; a plain object so it survives JSON between processes. */
export type LatencyHistogram = Record<string, number>;

/** Adds one latency in milliseconds. */
export function recordLatency(histogram: LatencyHistogram, ms: number): void {
  const bucket = Math.max(0, Math.floor(Math.log(Math.max(ms, FLOOR_MS) / FLOOR_MS) / Math.log(GROWTH)));
  histogram[bucket] = (histogram[bucket] ?? 0) + 1;
}

/** Sums histograms into a new one. */
export function mergeHistograms(histograms: readonly LatencyHistogram[]): LatencyHistogram {
  const merged: LatencyHistogram = {};
  for (const histogram of histograms) {
    for (const [bucket, count] of Object.entries(histogram)) merged[bucket] = (merged[bucket] ?? 0) + count;
  }
  return merged;
}

/** Number of latencies recorded. */
export function histogramCount(histogram: LatencyHistogram): number {
  return Object.values(histogram).reduce((sum, count) => sum + count, 0);
}

/** The p-th percentile (0..100) in milliseconds, as the upper edge of its bucket (within 1%); NaN when empty. */
export function histogramPercentile(histogram: LatencyHistogram, p: number): number {
  const buckets = Object.entries(histogram)
    .map(([bucket, count]) => [Number(bucket), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (const [bucket, count] of buckets) {
    seen += count;
    if (seen >= rank) return FLOOR_MS * GROWTH ** (bucket + 1);
  }
  return Number.NaN;
}
