// A small client for the Prometheus HTTP API (v1): metric-name discovery and range queries, with a
// timeout and a size bound on every answer, and the 11,000-points-per-series limit of query_range
// respected by splitting long windows.
import { InvalidInputError, UnavailableError } from "../domain/errors.js";
import { readCappedJson, ResponseTooLargeError } from "../domain/capped-response-body.js";
import { assertWindowBounds, MAX_POINTS_PER_SERIES } from "./window-bounds.js";

export { MAX_POINTS_PER_SERIES } from "./window-bounds.js";

/**
 * Default bound on one answer's bytes: a query_range sample is ~30 bytes of JSON, so 128 MiB is ~400 series
 * at the full 11,000 points of one request; parsed, such an answer takes ~3.4x its size of heap.
 */
export const DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

/** One series of a range query: labels and `[unix_seconds, "value"]` samples, as Prometheus returns them. */
export interface RangeSeries {
  readonly metric: Record<string, string>;
  readonly values: Array<[number, string]>;
}

export interface PrometheusClientOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:9090`. */
  readonly baseUrl: string;
  /** Per-request timeout. */
  readonly timeoutMs: number;
  /** Points per series per request; at most MAX_POINTS_PER_SERIES. */
  readonly maxPointsPerSeries?: number;
  /** Most bytes of one answer (default DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES); a larger one is refused. */
  readonly maxResponseBytes?: number;
}

export interface PrometheusClient {
  readonly baseUrl: string;
  /** All metric names (`/api/v1/label/__name__/values`), optionally limited to a time window. */
  listMetricNames(window?: { startSeconds: number; endSeconds: number }): Promise<string[]>;
  /** `query_range` over [start, end] at `step`, split into sub-ranges and merged per series. */
  queryRange(query: string, startSeconds: number, endSeconds: number, stepSeconds: number): Promise<RangeSeries[]>;
}

/** Creates a client; nothing is contacted until a method is called. */
export function createPrometheusClient(options: PrometheusClientOptions): PrometheusClient {
  let base: URL;
  try {
    base = new URL(options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`);
  } catch {
    throw new InvalidInputError("base_url", `not a URL: "${options.baseUrl}"`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new InvalidInputError("base_url", `expected an http or https URL, got "${options.baseUrl}"`);
  }
  const maxPoints = Math.min(options.maxPointsPerSeries ?? MAX_POINTS_PER_SERIES, MAX_POINTS_PER_SERIES);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES;
  const get = (path: string, params: URLSearchParams) =>
    getJson(new URL(`${path}?${params}`, base), options.timeoutMs, maxResponseBytes);

  return {
    baseUrl: options.baseUrl,
    async listMetricNames(window) {
      const params = new URLSearchParams();
      if (window) {
        params.set("start", String(window.startSeconds));
        params.set("end", String(window.endSeconds));
      }
      const data = await get("api/v1/label/__name__/values", params);
      if (!Array.isArray(data) || data.some((name) => typeof name !== "string")) {
        throw new UnavailableError("prometheus", `unexpected label values answer from ${base.origin}`);
      }
      return data as string[];
    },
    async queryRange(query, startSeconds, endSeconds, stepSeconds) {
      assertWindowBounds({ startSeconds, endSeconds, stepSeconds }, "window");
      const merged = new Map<string, RangeSeries>();
      for (const [start, end] of splitRange(startSeconds, endSeconds, stepSeconds, maxPoints)) {
        const params = new URLSearchParams({ query, start: String(start), end: String(end), step: String(stepSeconds) });
        const data = (await get("api/v1/query_range", params)) as { resultType?: string; result?: RangeSeries[] };
        if (data?.resultType !== "matrix" || !Array.isArray(data.result)) {
          throw new UnavailableError("prometheus", `query_range of ${query} did not return a matrix`);
        }
        for (const [index, series] of data.result.entries()) {
          assertSeriesShape(series, `query_range of ${query} from ${base.origin}: result[${index}]`);
          const key = seriesKey(series.metric);
          const existing = merged.get(key);
          if (existing === undefined) merged.set(key, { metric: series.metric, values: [...series.values] });
          else existing.values.push(...series.values);
        }
      }
      return [...merged.values()];
    },
  };
}

/**
 * Sub-ranges of [start, end] with at most `maxPoints` evaluation steps each, aligned on the original
 * grid start + i * step and not overlapping, so merged series have each step once. Produced one at a
 * time, after the window passed its bounds.
 */
export function* splitRange(
  startSeconds: number,
  endSeconds: number,
  stepSeconds: number,
  maxPoints = MAX_POINTS_PER_SERIES,
): Generator<[number, number]> {
  assertWindowBounds({ startSeconds, endSeconds, stepSeconds }, "window");
  const totalSteps = Math.floor((endSeconds - startSeconds) / stepSeconds);
  for (let first = 0; first <= totalSteps; first += maxPoints) {
    const last = Math.min(totalSteps, first + maxPoints - 1);
    yield [startSeconds + first * stepSeconds, startSeconds + last * stepSeconds];
  }
}

function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : typeof value;
}

// A series must be {metric: {...}, values: [...]} before it is merged; the samples themselves are
// checked where the series are parsed (services/domain/prometheus-response.ts). A malformed answer
// comes from the Prometheus the request named, so it is reported against that request field.
function assertSeriesShape(series: unknown, where: string): asserts series is RangeSeries {
  const record = series as { metric?: unknown; values?: unknown } | null;
  if (typeof series !== "object" || record === null || Array.isArray(series))
    throw new InvalidInputError("base_url", `${where} is ${shapeOf(series)}, not a series {"metric": {...}, "values": [...]}`);
  if (typeof record.metric !== "object" || record.metric === null || Array.isArray(record.metric))
    throw new InvalidInputError("base_url", `${where}.metric is ${shapeOf(record.metric)}, not an object of labels`);
  if (!Array.isArray(record.values))
    throw new InvalidInputError("base_url", `${where}.values is ${shapeOf(record.values)}, not a list of samples`);
}

function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((name) => [name, labels[name]]),
  );
}

async function getJson(url: URL, timeoutMs: number, maxResponseBytes: number): Promise<unknown> {
  let response: Response;
  try {
    // Redirects are not followed: the allowlist approved this host only, not wherever it points.
    response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json" },
      redirect: "manual",
    });
  } catch (cause) {
    const reason =
      (cause as Error).name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : `cannot be reached (${describeCause(cause)})`;
    throw new UnavailableError("prometheus", `${url.origin} ${reason}`, { cause });
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new UnavailableError(
      "prometheus",
      `${url.origin}${url.pathname} answered HTTP ${response.status} (redirect to ${response.headers.get("location") ?? "?"}); redirects are not followed, name the final URL`,
    );
  }
  let body: { status?: string; data?: unknown; error?: string; errorType?: string };
  try {
    body = (await readCappedJson(response, `${url.origin}${url.pathname}`, {
      limitBytes: maxResponseBytes,
      limitName: "--prometheus-max-response-bytes",
    })) as typeof body;
  } catch (cause) {
    // Too large is the query's size, not Prometheus failing: RESOURCE_EXHAUSTED, narrow the window.
    if (cause instanceof ResponseTooLargeError) throw cause;
    throw new UnavailableError("prometheus", `${url.origin}${url.pathname} answered HTTP ${response.status} without JSON`, {
      cause,
    });
  }
  if (response.ok && body.status === "success") return body.data;
  const reason = `${url.pathname} failed: HTTP ${response.status} ${body.errorType ?? ""} ${body.error ?? ""}`.trim();
  // 400/422 mean the query itself is wrong (bad step, too many points); anything else is the server's problem.
  if (response.status === 400 || response.status === 422) throw new InvalidInputError("window", reason);
  throw new UnavailableError("prometheus", `${url.origin}${reason}`);
}

function describeCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
  return inner?.code ?? inner?.message ?? (cause as Error).message;
}
