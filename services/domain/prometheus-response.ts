// The saved Prometheus range-query response the reference reads and writes (spec §1.3):
// `{metric_name: [{"metric": {labels}, "values": [[ts_seconds, "value"], ...]}, ...]}`, i.e. the
// `data.result` of one query_range per metric. Parsed into packed float64 arrays per metric, so the
// extractor can copy a metric into wasm memory in one bulk copy.
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { InvalidInputError } from "./errors.js";
import { PrometheusResponseStreamScanner, scanPrometheusResponse } from "./prometheus-response-scanner.js";

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

/** Total samples of a metric (0 when absent): the reference CLI's `len(query_results[q])`. */
export function sampleCount(response: PrometheusResponse, metricName: string): number {
  return response.metrics.get(metricName)?.timestamps.length ?? 0;
}

/** Default upper bound on an inline response's size: 1 GiB of JSON text. */
export const MAX_RESPONSE_BYTES = 1024 * 1024 * 1024;

/**
 * Parses a response while its byte chunks arrive (split anywhere): each series is packed into float64
 * arrays as soon as its closing brace is in, so the JSON text is never held whole.
 */
export class PrometheusResponseStream {
  private readonly builder: PrometheusResponseBuilder;
  private readonly scanner: PrometheusResponseStreamScanner;
  private size = 0;

  constructor(
    private readonly field = "response",
    private readonly maxBytes = MAX_RESPONSE_BYTES,
  ) {
    this.builder = new PrometheusResponseBuilder(field);
    this.scanner = new PrometheusResponseStreamScanner(this.builder, field);
  }

  /** Scans the next bytes of the JSON text; InvalidInputError as soon as a complete part is wrong. */
  push(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) {
      throw new InvalidInputError(this.field, `response is larger than the limit of ${this.maxBytes} bytes`);
    }
    this.scanner.push(chunk);
  }

  /** Bytes received so far. */
  get receivedBytes(): number {
    return this.size;
  }

  /** The last chunk is in: the parsed response; InvalidInputError for an incomplete or malformed one. */
  finish(): PrometheusResponse {
    this.scanner.end();
    return this.builder.build();
  }
}

const READ_CHUNK_BYTES = 1 << 20;

/** Parses a saved-response file (`.gz` decompressed on the fly) chunk by chunk. */
export async function readPrometheusResponseFile(path: string, field = "response"): Promise<PrometheusResponse> {
  const stream = new PrometheusResponseStream(field);
  // 1 MiB reads: a series is then rarely split across reads, and one that is gets re-read less often.
  const file = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  const bytes: AsyncIterable<Buffer> = path.endsWith(".gz") ? file.pipe(createGunzip({ chunkSize: READ_CHUNK_BYTES })) : file;
  for await (const chunk of bytes) stream.push(chunk);
  return stream.finish();
}

/**
 * Parses the saved-response JSON text (bytes or a string, read by a single-pass byte scanner) or an
 * already parsed object, and validates its shape.
 */
export function parsePrometheusResponse(input: string | Uint8Array | unknown, field = "response"): PrometheusResponse {
  const builder = new PrometheusResponseBuilder(field);
  if (typeof input === "string" || input instanceof Uint8Array) {
    scanPrometheusResponse(typeof input === "string" ? Buffer.from(input, "utf8") : input, builder, field);
    return builder.build();
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new InvalidInputError(field, `expected a JSON object mapping metric names to series lists, got ${describe(input)}`);
  }
  for (const [name, seriesList] of Object.entries(input as Record<string, unknown>)) {
    builder.addMetricJson(name, seriesList);
  }
  return builder.build();
}

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

/** Checks a series' `metric` object: string label values only. */
export function assertLabels(metric: unknown, path: string): Record<string, string> {
  if (metric === null || typeof metric !== "object" || Array.isArray(metric)) {
    throw new InvalidInputError(path, `expected an object of labels, got ${describe(metric)}`);
  }
  // Checked in place: the object comes from JSON.parse, a fresh plain object.
  const labels = metric as Record<string, unknown>;
  for (const label in labels) {
    const value = labels[label];
    if (typeof value !== "string")
      throw new InvalidInputError(`${path}.${label}`, `expected a string label value, got ${describe(value)}`);
  }
  return labels as Record<string, string>;
}

/** A sample timestamp: a finite number of seconds. */
export function assertTimestamp(raw: unknown, path: string): number {
  if (typeof raw !== "number" || !Number.isFinite(raw)) {
    throw new InvalidInputError(path, `expected a finite number of seconds, got ${describe(raw)}`);
  }
  return raw;
}

// Prometheus writes sample values as strings ("12.5", "NaN", "+Inf", "-Inf"); Python's float() reads
// the same. Numbers are accepted too (hand-made files).
export function parseSampleValue(raw: unknown, path: string): number {
  if (typeof raw === "number") return raw;
  if (typeof raw !== "string" || raw.trim() === "")
    throw new InvalidInputError(path, `expected a numeric string, got ${describe(raw)}`);
  const value = Number(raw);
  if (!Number.isNaN(value)) return value;
  switch (raw.trim().toLowerCase()) {
    case "nan":
      return Number.NaN;
    case "+inf":
    case "inf":
    case "+infinity":
    case "infinity":
      return Number.POSITIVE_INFINITY;
    case "-inf":
    case "-infinity":
      return Number.NEGATIVE_INFINITY;
    default:
      throw new InvalidInputError(path, `expected a numeric string, got ${describe(raw)}`);
  }
}

/** A short description of a JSON value for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  return typeof value === "object" ? "an object" : String(value);
}
