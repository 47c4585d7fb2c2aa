import type { PrometheusMetric, PrometheusResponse } from "../../domain/prometheus-response.js";
import { InvalidInputError } from "../../domain/errors.js";
import { F64Buffer, type F64Slice, sliceOf, withBuffers } from "../../../wasm-core/src/index.js";
import type { WasmScope } from "./wasm-scope.js";

/** A metric copied into wasm memory: its packed timestamps and values, and a slice per series. */
export interface MetricBlock {
  readonly metric: PrometheusMetric;
  readonly timestamps: F64Buffer;
  readonly values: F64Buffer;
}

/** Copies a metric's packed samples into wasm memory (two bulk copies), owned by the scope. */
export function loadMetricBlock(scope: WasmScope, metric: PrometheusMetric): MetricBlock {
  return { metric, timestamps: scope.from(metric.timestamps), values: scope.from(metric.values) };
}

/**
 * Runs `body` with the metric's samples in wasm memory and frees them right after: one metric at a
 * time keeps the wasm high-water mark near one metric's size instead of the whole response's.
 */
export function withMetricBlock<T>(metric: PrometheusMetric, body: (block: MetricBlock) => T): T {
  const timestamps = F64Buffer.from(metric.timestamps);
  const values = F64Buffer.from(metric.values);
  return withBuffers([timestamps, values], () => body({ metric, timestamps, values }));
}

/** The timestamps of one series of the block. */
export function seriesTimestamps(block: MetricBlock, seriesIndex: number): F64Slice {
  const series = block.metric.series[seriesIndex]!;
  return sliceOf(block.timestamps, series.offset, series.length);
}

/** The values of one series of the block. */
export function seriesValues(block: MetricBlock, seriesIndex: number): F64Slice {
  const series = block.metric.series[seriesIndex]!;
  return sliceOf(block.values, series.offset, series.length);
}

/** The metric, or InvalidInputError naming it and why it is needed. */
export function requireMetric(response: PrometheusResponse, name: string, neededFor: string): PrometheusMetric {
  const metric = response.metrics.get(name);
  if (metric === undefined) throw new InvalidInputError("response", `missing metric ${name} (needed for ${neededFor})`);
  if (metric.series.length === 0)
    throw new InvalidInputError(`response.${name}`, `metric has no series (needed for ${neededFor})`);
  return metric;
}

/**
 * Rejects a NaN or infinite sample in a series the extraction uses: a counter cannot be NaN, and a
 * silent 0 would bend the rates around it. The error names the metric, series and sample.
 */
export function assertFiniteSeries(metric: PrometheusMetric, seriesIndex: number): void {
  const series = metric.series[seriesIndex]!;
  if (series.firstNonFiniteIndex < 0) return;
  const value = metric.values[series.offset + series.firstNonFiniteIndex];
  throw new InvalidInputError(
    `response.${metric.name}[${seriesIndex}].values[${series.firstNonFiniteIndex}][1]`,
    `value is ${value}; samples used for extraction must be finite numbers`,
  );
}

/** Label value as the reference's DataFrame sees it: a missing label is NaN, printed "nan". */
export function labelOf(labels: Readonly<Record<string, string>>, name: string): string {
  return labels[name] ?? "nan";
}
