// The per-timestamp (node-level) columns of an extraction: power per component, system features and
// node_type, on the power axis (reference get_power_data, drop_zero_column, get_system_feature_data,
// get_system_category; spec §3.1, §3.3, §3.4).
import { FULL_NEVER_VALID_REASON } from "../../domain/feature-groups.js";
import { InvalidInputError } from "../../domain/errors.js";
import { type EnergySource, energySourceOfLabel, powerColumn } from "../../domain/energy-sources.js";
import type { PrometheusResponse } from "../../domain/prometheus-response.js";
import {
  type F64Buffer,
  type F64Slice,
  accumulateOnAxis,
  copySlice,
  counterToRateOnSlices,
  countDecreases,
  gatherByIndex,
  intersectionOfSorted,
  keepPowerRows,
  locateOnAxis,
  meanOrMissing,
  sliceOf,
  unionOfSorted,
} from "../../../wasm-core/src/index.js";
import { NODE_INFO_METRIC, SOURCE_LABEL, energyMetricName, featureMetricName } from "./metric-names.js";
import { assertFiniteSeries, labelOf, loadMetricBlock, requireMetric, seriesTimestamps, seriesValues } from "./metric-block.js";
import type { WasmScope } from "./wasm-scope.js";

/** Node-level columns on the power axis: nCols columns of stride `stride`, rowCount rows kept. */
export interface NodeColumns {
  /** Unix seconds of the kept rows (the first rowCount values). */
  readonly axis: F64Slice;
  readonly block: F64Buffer;
  readonly stride: number;
  readonly columnNames: readonly string[];
  readonly powerColumnNames: readonly string[];
}

export interface NodeColumnOptions {
  readonly source: EnergySource;
  readonly components: readonly string[];
  readonly systemFeatures: readonly string[];
  readonly nodeType: number | undefined;
  readonly useVmMetrics: boolean;
}

/**
 * Power per component (energy summed over series per timestamp, then a per-second rate with each row's
 * own step), system features and node_type, joined on the timestamps every column has; rows whose
 * power sums to 0 are dropped (drop_zero_column).
 */
export function buildNodeColumns(
  scope: WasmScope,
  response: PrometheusResponse,
  options: NodeColumnOptions,
  notices: string[],
): NodeColumns {
  const componentRates = options.components.map((component) => componentPower(scope, response, component, options, notices));
  const axis = scope.own(intersectionOfSorted(componentRates.map((rates) => rates.axis)));
  const powerColumnNames = options.components.map(powerColumn);
  const columnNames = [...powerColumnNames, ...options.systemFeatures, "node_type"];
  const stride = axis.length;
  const block = scope.zeros(Math.max(1, stride * columnNames.length));
  const column = (index: number): F64Slice => sliceOf(block, index * stride, stride);

  componentRates.forEach((rates, index) => {
    const rowIndex = scope.own(locateOnAxis(rates.axis, axis));
    copySlice(scope.own(gatherByIndex(rates.values, rowIndex, Number.NaN)), column(index));
  });
  options.systemFeatures.forEach((feature, index) => {
    const name = featureMetricName(feature, { useVmMetrics: false, thirdPartyMetrics: [] });
    // Only Full has system features; Kepler never exports kepler_node_node_info (spec §1.2): say so.
    const metric = requireMetric(response, name, `system feature ${feature} of group Full; ${FULL_NEVER_VALID_REASON}`);
    copySlice(perTimestampMean(scope, response, metric.name, axis, Number.NaN), column(powerColumnNames.length + index));
  });
  const nodeTypeColumn = column(columnNames.length - 1);
  if (options.nodeType !== undefined) {
    const start = stride * (columnNames.length - 1);
    block.view().fill(options.nodeType, start, start + stride);
  } else if (response.metrics.get(NODE_INFO_METRIC)?.series.length) {
    copySlice(perTimestampMean(scope, response, NODE_INFO_METRIC, axis, 0), nodeTypeColumn);
  }

  const kept = keepPowerRows(axis, block, columnNames.length, powerColumnNames.length);
  const dropped = stride - kept;
  if (dropped > 0) {
    notices.push(
      `${dropped} timestamp(s) dropped because the power columns sum to 0 (or a system feature is missing there), as the reference's drop_zero_column does`,
    );
  }
  return { axis: sliceOf(axis, 0, kept), block, stride, columnNames, powerColumnNames };
}

interface ComponentRates {
  /** Timestamps of the rates (the energy axis without its first step). */
  readonly axis: F64Slice;
  readonly values: F64Slice;
}

function componentPower(
  scope: WasmScope,
  response: PrometheusResponse,
  component: string,
  options: NodeColumnOptions,
  notices: string[],
): ComponentRates {
  const name = energyMetricName(component, options.useVmMetrics);
  const metric = requireMetric(response, name, `the ${component} power of energy source ${options.source}`);
  const selected = metric.series
    .map((series, index) => ({ series, index }))
    .filter(({ series }) => options.useVmMetrics || energySourceOfLabel(labelOf(series.labels, SOURCE_LABEL)) === options.source)
    .map(({ index }) => index);
  if (selected.length === 0) {
    const present = [...new Set(metric.series.map((series) => labelOf(series.labels, SOURCE_LABEL)))].join(", ");
    throw new InvalidInputError(`response.${name}`, `no series with source="${options.source}" (sources present: ${present})`);
  }
  for (const index of selected) assertFiniteSeries(metric, index);
  const block = loadMetricBlock(scope, metric);
  const slices = selected.map((index) => seriesTimestamps(block, index));
  // Steps where some series has no sample would sum a partial total and fake a drop and a spike;
  // only steps every series covers are used (the reference sums whatever is there).
  const axis = scope.own(intersectionOfSorted(slices));
  const union = scope.own(unionOfSorted(slices));
  if (union.length > axis.length) {
    notices.push(
      `${name}: ${union.length - axis.length} timestamp(s) not covered by every ${options.source} series were left out of the energy sum`,
    );
  }
  if (axis.length < 2) {
    throw new InvalidInputError(
      `response.${name}`,
      `needs at least two common timestamps across its ${options.source} series to compute power, got ${axis.length}`,
    );
  }
  const sums = scope.zeros(axis.length);
  const counts = scope.zeros(axis.length);
  // Series in input order with Kahan compensation: the same additions as pandas' groupby(timestamp).sum().
  const compensation = scope.zeros(axis.length);
  for (const index of selected) {
    accumulateOnAxis(axis, seriesTimestamps(block, index), seriesValues(block, index), sums, counts, compensation);
  }
  const rates = scope.zeros(axis.length);
  // A decrease of the summed counter (a reset of any counter under it) repeats the previous rate, as
  // the reference's mask(<0) -> ffill -> fillna(0) does for power.
  counterToRateOnSlices(axis, sums, rates, "repeat-previous");
  const decreases = countDecreases(sums);
  if (decreases > 0) {
    notices.push(
      `${name}: the summed ${options.source} energy decreases ${decreases} time(s); read as counter resets (the previous power is repeated, as in the reference)`,
    );
  }
  return { axis: sliceOf(axis, 1, axis.length - 1), values: sliceOf(rates, 1, axis.length - 1) };
}

// Mean over series per timestamp, truncated to an integer (reference get_system_feature_data and the
// node_info column), `missing` where no series has a sample.
function perTimestampMean(
  scope: WasmScope,
  response: PrometheusResponse,
  name: string,
  axis: F64Slice,
  missing: number,
): F64Buffer {
  const metric = response.metrics.get(name)!;
  metric.series.forEach((_, index) => {
    assertFiniteSeries(metric, index);
  });
  const block = loadMetricBlock(scope, metric);
  const sums = scope.zeros(axis.length);
  const counts = scope.zeros(axis.length);
  metric.series.forEach((_, index) => {
    accumulateOnAxis(axis, seriesTimestamps(block, index), seriesValues(block, index), sums, counts);
  });
  return scope.own(meanOrMissing(sums, counts, missing, true));
}
