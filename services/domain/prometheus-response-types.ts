// The parsed form of a saved Prometheus response: packed float64 samples per metric (prometheus-response.ts parses it).
/** One series of a metric: its labels and where its samples sit in the metric's packed arrays. */
export interface PrometheusSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Index of the series' first sample in the metric's `timestamps`/`values`. */
  readonly offset: number;
  readonly length: number;
  /** Index (within the series) of the first NaN or infinite value, or -1 when all are finite. */
  readonly firstNonFiniteIndex: number;
}

/** All series of one metric, samples packed series after series, each series in increasing time. */
export interface PrometheusMetric {
  readonly name: string;
  readonly series: readonly PrometheusSeries[];
  /** Unix seconds. */
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
}

/** A parsed response: metrics by name, in input order, plus notes on what parsing repaired. */
export interface PrometheusResponse {
  readonly metrics: ReadonlyMap<string, PrometheusMetric>;
  /** One sentence per repair (e.g. a series whose samples were out of time order and were sorted). */
  readonly notices: readonly string[];
}
