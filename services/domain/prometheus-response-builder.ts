// Packs series into a PrometheusResponse as they are read (the JSON scanner, the object path, live Prometheus).
import { InvalidInputError } from "./errors.js";
import { assertLabels, assertTimestamp, describe, parseSampleValue } from "./prometheus-sample-checks.js";
import type { PrometheusMetric, PrometheusResponse, PrometheusSeries } from "./prometheus-response-types.js";

/**
 * Builds a response series by series (the live Prometheus path and the JSON parser both use it).
 * Series of the same metric may come in several calls (e.g. one per query sub-range).
 */
export class PrometheusResponseBuilder {
  private readonly metrics = new Map<
    string,
    { series: PrometheusSeries[]; timestamps: Float64Array[]; values: Float64Array[]; size: number }
  >();
  private readonly notices: string[] = [];
  private lastMetric: string | undefined;

  constructor(private readonly field = "response") {}

  /** Declares a metric (kept even with no series, as the reference keeps empty query results). */
  addMetric(name: string): void {
    if (!this.metrics.has(name)) this.metrics.set(name, { series: [], timestamps: [], values: [], size: 0 });
  }

  /** Validates and adds one metric's JSON series list. */
  addMetricJson(name: string, seriesList: unknown): void {
    const path = `${this.field}.${name}`;
    if (!Array.isArray(seriesList)) throw new InvalidInputError(path, `expected a list of series, got ${describe(seriesList)}`);
    this.addMetric(name);
    seriesList.forEach((series, index) => {
      this.addSeriesJson(name, series, `${path}[${index}]`);
    });
  }

  /** Adds one series from typed arrays; timestamps must strictly increase and be finite. */
  addSeries(name: string, labels: Record<string, string>, timestamps: Float64Array, values: Float64Array): void {
    const path = `${this.field}.${name}[${this.metrics.get(name)?.series.length ?? 0}]`;
    if (timestamps.length !== values.length) {
      throw new InvalidInputError(path, `${timestamps.length} timestamps but ${values.length} values`);
    }
    let firstNonFinite = -1;
    let previous = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < timestamps.length; i++) {
      const t = timestamps[i]!;
      if (!Number.isFinite(t)) throw new InvalidInputError(`${path}.values[${i}][0]`, `timestamp is not a finite number`);
      if (t <= previous) throw new InvalidInputError(`${path}.values[${i}][0]`, `timestamp ${t} does not increase`);
      previous = t;
      if (firstNonFinite < 0 && !Number.isFinite(values[i]!)) firstNonFinite = i;
    }
    this.push(name, labels, timestamps, values, firstNonFinite);
  }

  /** The response: each metric's samples packed into one pair of arrays. */
  build(): PrometheusResponse {
    const metrics = new Map<string, PrometheusMetric>();
    for (const [name, parts] of this.metrics) {
      this.pack(name);
      metrics.set(name, {
        name,
        series: [...parts.series],
        timestamps: parts.timestamps[0] ?? new Float64Array(0),
        values: parts.values[0] ?? new Float64Array(0),
      });
    }
    return { metrics, notices: [...this.notices] };
  }

  // Concatenates a metric's series blocks into one block each for timestamps and values (the samples
  // are held twice for this one metric while it is copied, never for the whole response).
  private pack(name: string): void {
    const parts = this.metrics.get(name)!;
    if (parts.timestamps.length <= 1) return;
    const timestamps = new Float64Array(parts.size);
    const values = new Float64Array(parts.size);
    let offset = 0;
    parts.timestamps.forEach((block, index) => {
      timestamps.set(block, offset);
      values.set(parts.values[index]!, offset);
      offset += block.length;
    });
    parts.timestamps = [timestamps];
    parts.values = [values];
  }

  private addSeriesJson(name: string, series: unknown, path: string): void {
    if (series === null || typeof series !== "object" || Array.isArray(series)) {
      throw new InvalidInputError(path, `expected a series object {"metric": {...}, "values": [...]}, got ${describe(series)}`);
    }
    const { metric, values } = series as { metric?: unknown; values?: unknown };
    const labels = assertLabels(metric, `${path}.metric`);
    if (!Array.isArray(values))
      throw new InvalidInputError(`${path}.values`, `expected a list of [timestamp, "value"] pairs, got ${describe(values)}`);
    const n = values.length;
    const timestamps = new Float64Array(n);
    const numbers = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const pair = values[i] as unknown;
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new InvalidInputError(`${path}.values[${i}]`, `expected a [timestamp, "value"] pair, got ${describe(pair)}`);
      }
      timestamps[i] = assertTimestamp(pair[0], `${path}.values[${i}][0]`);
      numbers[i] = parseSampleValue(pair[1], `${path}.values[${i}][1]`);
    }
    this.addParsedSeries(name, labels, timestamps, numbers, path);
  }

  /**
   * Adds a series whose samples were decoded elsewhere (the byte scanner): sorts out-of-order samples,
   * rejects repeated timestamps and notes the first non-finite value.
   */
  addParsedSeries(
    name: string,
    labels: Record<string, string>,
    timestamps: Float64Array,
    values: Float64Array,
    path: string,
  ): void {
    let sorted = true;
    for (let i = 1; i < timestamps.length && sorted; i++) if (!(timestamps[i]! > timestamps[i - 1]!)) sorted = false;
    if (!sorted) this.sortSeries(name, path, timestamps, values);
    let firstNonFinite = -1;
    for (let i = 0; i < values.length && firstNonFinite < 0; i++) if (!Number.isFinite(values[i]!)) firstNonFinite = i;
    this.push(name, labels, timestamps, values, firstNonFinite);
  }

  // Out-of-order samples are sorted by time, as the reference's sort_index does; a repeated timestamp
  // has no defined order or rate, so it is rejected.
  private sortSeries(name: string, path: string, timestamps: Float64Array, values: Float64Array): void {
    const order = Array.from(timestamps.keys()).sort((a, b) => timestamps[a]! - timestamps[b]!);
    const t = Float64Array.from(order, (i) => timestamps[i]!);
    const v = Float64Array.from(order, (i) => values[i]!);
    for (let i = 1; i < t.length; i++) {
      if (t[i] === t[i - 1]) {
        throw new InvalidInputError(`${path}.values[${order[i]}][0]`, `duplicate timestamp ${t[i]} in one series`);
      }
    }
    timestamps.set(t);
    values.set(v);
    this.notices.push(`${name}: the samples of ${path} were not in time order and were sorted, as the reference does`);
  }

  private push(
    name: string,
    labels: Record<string, string>,
    timestamps: Float64Array,
    values: Float64Array,
    firstNonFiniteIndex: number,
  ): void {
    // A metric's series arrive together: pack the previous metric now, so its per-series blocks can be
    // collected while the rest of the response is still being read.
    if (this.lastMetric !== undefined && this.lastMetric !== name) this.pack(this.lastMetric);
    this.lastMetric = name;
    this.addMetric(name);
    const parts = this.metrics.get(name)!;
    parts.series.push({ labels, offset: parts.size, length: timestamps.length, firstNonFiniteIndex });
    parts.timestamps.push(timestamps);
    parts.values.push(values);
    parts.size += timestamps.length;
  }
}
