// Prometheus metrics (prom-client): one registry per process, so the all-in-one process exposes the six
// services on one /metrics endpoint, each series labelled with its service. Names follow Prometheus
// conventions: `kepler_model_` prefix, `_total` counters, base units (`_seconds`). The kit measures every
// call (call-metrics.ts); services add their own metrics from here.
import { createServer, type Server } from "node:http";
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from "prom-client";
import type { ConfigKey } from "../config/config-schema.js";
import { listenFailure } from "../transport/listen-failure.js";
import { buildInfo } from "../../domain/build-info.js";

/** The process's metrics registry. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });
// prom-client names three gauges `_total`, which `promtool check metrics` rejects (only counters may end
// so); their `nodejs_active_*` siblings without the suffix stay.
for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
  metricsRegistry.removeSingleMetric(name);

// Latency buckets from 0.5 ms (an Estimate of one row) to 60 s (a training call).
type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];
// Metrics kept elsewhere in this process (a service on a thread of its own: mesh/service-thread.ts), asked
// for at each scrape and summed with this registry's series.
const metricsSources = new Set<() => Promise<MetricsJson>>();

/** Adds a source of metrics to /metrics; the function returned removes it. */
export function addMetricsSource(source: () => Promise<MetricsJson>): () => void {
  metricsSources.add(source);
  return () => metricsSources.delete(source);
}

/**
 * The exposition text: this registry, with the sources' series summed into the metrics they share by name
 * and labels. Metrics only this registry has are written as they are (summing would drop those prom-client
 * marks as not to be aggregated, such as process_start_time_seconds).
 */
async function metricsText(): Promise<string> {
  if (metricsSources.size === 0) return metricsRegistry.metrics();
  const fromSources = await Promise.all([...metricsSources].map((source) => source()));
  const shared = new Set(fromSources.flat().map((metric) => metric.name));
  const own = await metricsRegistry.getMetricsAsJSON();
  const ownOnly = await Promise.all(
    own.filter((metric) => !shared.has(metric.name)).map((metric) => metricsRegistry.getSingleMetricAsString(metric.name)),
  );
  const summed = AggregatorRegistry.aggregate([own.filter((metric) => shared.has(metric.name)), ...fromSources] as Parameters<
    typeof AggregatorRegistry.aggregate
  >[0]);
  return `${[...ownOnly, (await summed.metrics()).trimEnd()].join("\n")}\n`;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A counter registered on the process registry. */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [metricsRegistry] });
}

/**
 * A counter for a hot path: `bind(labels)` returns an adder for one label set that only adds to a
 * number; the sums reach the counter when it is scraped (prom-client hashes the labels on every inc,
 * which costs more than a small estimate).
 */
export function tallyCounter<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
): { bind(labels: Record<L, string>): (value?: number) => void } {
  const tallies: Array<{ labels: Record<L, string>; pending: number }> = [];
  new Counter({
    name,
    help,
    labelNames,
    registers: [metricsRegistry],
    collect(this: Counter<L>) {
      for (const tally of tallies) {
        if (tally.pending === 0) continue;
        this.inc(tally.labels, tally.pending);
        tally.pending = 0;
      }
    },
  });
  return {
    bind(labels) {
      const tally = { labels, pending: 0 };
      tallies.push(tally);
      return (value = 1) => {
        tally.pending += value;
      };
    },
  };
}

/** A gauge registered on the process registry; `collect` refreshes it at scrape time. */
export function gauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  collect?: (this: Gauge<L>) => void,
): Gauge<L> {
  return new Gauge({ name, help, labelNames, registers: [metricsRegistry], ...(collect ? { collect } : {}) });
}

/** A latency histogram (seconds) registered on the process registry. */
export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[]): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [metricsRegistry] });
}

/** `--metrics-host`: where the /metrics endpoint listens. */
export const metricsHostKey: ConfigKey<string> = {
  type: "string",
  default: "127.0.0.1",
  env: "KEPLER_MODEL_METRICS_HOST",
  flag: "metrics-host",
  description: "Host the Prometheus /metrics endpoint of the process listens on (0.0.0.0 in a container).",
};

/** `--metrics-port`: the /metrics endpoint's port. */
export const metricsPortKey: ConfigKey<number> = {
  type: "integer",
  default: 8106,
  env: "KEPLER_MODEL_METRICS_PORT",
  flag: "metrics-port",
  description:
    "Port of the process's Prometheus /metrics endpoint (one for all services the process runs); 0 picks a free port, -1 turns metrics off (no endpoint, no per-call measuring).",
  check: (value) =>
    Number.isInteger(value) && (value as number) >= -1 && (value as number) <= 65535
      ? undefined
      : `expected a port 0-65535 or -1, got ${value}`,
};

/** A running /metrics endpoint. */
export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves the process registry as Prometheus text on GET /metrics; with `authorize` (metrics-auth.ts) a
 * request it refuses gets 401.
 */
export async function startMetricsServer(
  host: string,
  port: number,
  options: { authorize?: (authorization: string | undefined) => boolean } = {},
): Promise<MetricsServer> {
  registerBuildInfo();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("the endpoint is GET /metrics");
      return;
    }
    if (options.authorize !== undefined && !options.authorize(request.headers.authorization)) {
      response
        .writeHead(401, { "Content-Type": "text/plain; charset=utf-8", "WWW-Authenticate": 'Bearer realm="metrics"' })
        .end("/metrics needs a bearer token of --metrics-tokens-file: send Authorization: Bearer <token>");
      return;
    }
    metricsText().then(
      (text) => response.writeHead(200, { "Content-Type": metricsRegistry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { "Content-Type": "text/plain" }).end(String(error)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(listenFailure("metrics HTTP", `${host}:${port}`, error)));
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// kepler_model_build_info{version,revision} 1: which build serves (join it onto other series by instance).
function registerBuildInfo(): void {
  if (metricsRegistry.getSingleMetric("kepler_model_build_info") !== undefined) return;
  const { version, revision } = buildInfo();
  gauge("kepler_model_build_info", "The running kepler-model: version from package.json, revision the git commit; always 1.", [
    "version",
    "revision",
  ]).set({ version, revision }, 1);
}
