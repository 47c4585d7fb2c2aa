// The extractor (reference DefaultExtractor / SmoothExtractor.extract, spec §3): a Prometheus
// response -> the node-level (AbsPower input) or container-level (isolator input) table for one
// feature group and energy source, with the per-feature correlation to power. All arithmetic runs in
// wasm-core; this file only plans, indexes and assembles.
import type { DataTable } from "../../domain/data-table.js";
import { componentsOf, type EnergySource } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import { type FeatureGroupName, featuresOf } from "../../domain/feature-groups.js";
import type { PrometheusMetric, PrometheusResponse } from "../../domain/prometheus-response.js";
import {
  F64Buffer,
  type GatheredRows,
  type RowLevelColumns,
  gatherContainerRows,
  countPresentKeys,
  gatherNodeRows,
  locateOnAxis,
  pearsonWithTarget,
  rollingMeanColumns,
  sumOverKeys,
} from "../../../wasm-core/src/index.js";
import { energyMetricName, featureMetricName, isSystemFeature, NODE_INFO_METRIC, USAGE_RATIO_METRIC } from "./metric-names.js";
import { buildNodeColumns } from "./node-columns.js";
import { type ValidFeatureGroups, validFeatureGroupsOf } from "./valid-feature-groups.js";
import { type WasmScope, withWasmScope } from "./wasm-scope.js";
import { buildWorkloadGrid } from "./workload-grid.js";

/** The two extractors of the reference. */
export type ExtractorKind = "default" | "smooth";
/** Node level: one row per timestamp. Container level: one row per (timestamp, container). */
export type TableLevel = "node" | "container";

/** The SmoothExtractor's window (reference smooth_window). */
const SMOOTH_WINDOW = 30;

export interface ExtractOptions {
  readonly energySource: EnergySource;
  readonly featureGroup: FeatureGroupName;
  readonly level: TableLevel;
  readonly extractor: ExtractorKind;
  /** Replaces the node_type column (reference replace_node_type); otherwise kepler_node_node_info or 0. */
  readonly nodeType?: number;
  readonly useVmMetrics?: boolean;
  readonly thirdPartyMetrics?: readonly string[];
}

/** One feature's Pearson correlation with the first component's power (NaN when either is constant). */
export interface FeatureCorrelation {
  readonly feature: string;
  readonly correlation: number;
}

export interface ExtractResult {
  /** Columns: features, power, system features (Full), node_type, [packge_ratio_package]. */
  readonly table: DataTable;
  readonly powerColumns: readonly string[];
  /** The workload feature columns of the table (node-level features after the container ones). */
  readonly features: readonly string[];
  readonly correlationPowerColumn: string;
  readonly correlations: readonly FeatureCorrelation[];
  readonly validFeatureGroups: readonly FeatureGroupName[];
  readonly validHistoricalFeatureGroups: readonly string[];
  /** Distinct row ids of a container-level table; 0 at node level. */
  readonly containerCount: number;
  /** Documented handling applied to this input, one sentence each. */
  readonly notices: readonly string[];
}

/** The reference's misspelt ratio column for the `package` unit (spec §3.5, Appendix A.6). */
export const PACKAGE_RATIO_COLUMN = "packge_ratio_package";

/** The metrics extract() reads with these options (the response's valid feature groups aside). */
function metricsReadBy(options: ExtractOptions): string[] {
  const useVmMetrics = options.useVmMetrics ?? false;
  const names = { useVmMetrics, thirdPartyMetrics: options.thirdPartyMetrics ?? [] };
  return [
    ...componentsOf(options.energySource).map((component) => energyMetricName(component, useVmMetrics)),
    ...featuresOf(options.featureGroup, names.thirdPartyMetrics).map((feature) => featureMetricName(feature, names)),
    NODE_INFO_METRIC,
    USAGE_RATIO_METRIC,
  ];
}

/**
 * What extract() needs of a response with these options, ready to be copied to another thread: the
 * metrics it reads and the response's valid feature groups (which look at every feature metric).
 */
export function extractInput(
  response: PrometheusResponse,
  options: ExtractOptions,
): { response: PrometheusResponse; validFeatureGroups: ValidFeatureGroups } {
  const metrics = new Map<string, PrometheusMetric>();
  for (const name of metricsReadBy(options)) {
    const metric = response.metrics.get(name);
    if (metric !== undefined) metrics.set(name, metric);
  }
  return {
    response: { ...response, metrics },
    validFeatureGroups: validFeatureGroupsOf(response, options.thirdPartyMetrics ?? [], options.useVmMetrics ?? false),
  };
}

/**
 * Extracts the table of one feature group and energy source from a parsed response. `valid`: the
 * response's valid feature groups when worked out already (extractInput).
 */
export function extract(
  response: PrometheusResponse,
  options: ExtractOptions,
  valid: ValidFeatureGroups = validFeatureGroupsOf(response, options.thirdPartyMetrics ?? [], options.useVmMetrics ?? false),
): ExtractResult {
  const useVmMetrics = options.useVmMetrics ?? false;
  const thirdPartyMetrics = options.thirdPartyMetrics ?? [];
  if (options.featureGroup === "ThirdParty" && thirdPartyMetrics.length === 0) {
    throw new InvalidInputError(
      "third_party_metric_names",
      "the ThirdParty feature group needs at least one third-party metric name",
    );
  }
  if (options.featureGroup === "AcceleratorOnly" && options.level === "container") {
    throw new InvalidInputError(
      "level",
      "AcceleratorOnly has node-level data only (the reference extracts no container-level table for it)",
    );
  }
  const groupFeatures = featuresOf(options.featureGroup, thirdPartyMetrics);
  const workloadFeatures = groupFeatures.filter((feature) => !isSystemFeature(feature));
  const systemFeatures = groupFeatures.filter(isSystemFeature);
  const notices = [...response.notices];
  if (response.metrics.has(USAGE_RATIO_METRIC)) {
    notices.push(
      `${USAGE_RATIO_METRIC} is present but not used: power is summed over packages (per-package columns are not supported)`,
    );
  }
  return withWasmScope((scope) => {
    const node = buildNodeColumns(
      scope,
      response,
      {
        source: options.energySource,
        components: componentsOf(options.energySource),
        systemFeatures,
        nodeType: options.nodeType,
        useVmMetrics,
      },
      notices,
    );
    const grid = buildWorkloadGrid(
      scope,
      response,
      { features: workloadFeatures, useVmMetrics, thirdPartyMetrics, featureGroup: options.featureGroup },
      notices,
    );
    const planes = grid.featureColumns.length;
    const keys = grid.keys.length;
    const steps = grid.axis.length;
    const hasPackageRatio = node.powerColumnNames.some((column) => column.includes("package"));
    const rowLevel: RowLevelColumns = {
      block: hasPackageRatio ? withPackageRatio(scope, node.block, node.stride, node.columnNames.length) : node.block,
      nCols: node.columnNames.length + (hasPackageRatio ? 1 : 0),
      nRows: node.stride,
      rowIndex: scope.own(locateOnAxis(node.axis, grid.axis)),
    };
    const sums = scope.own(sumOverKeys(grid.grid, planes, keys, steps));
    const rowCounts = scope.own(countPresentKeys(grid.presence, keys, steps));
    // Power is the mean over the step's container rows in the reference; averaged the same way here.
    const nodeRows = gatherNodeRows(sums, planes, grid.axis, rowCounts, rowLevel, node.powerColumnNames.length);
    const correlations = correlate(nodeRows, grid.featureColumns);

    const rows =
      options.level === "node" ? nodeRows : gatherContainerRows(grid.grid, grid.presence, grid.axis, { planes, keys }, rowLevel);
    const rowIds = options.level === "node" ? undefined : Array.from(rows.keyIndex, (index) => grid.keys[index]!);
    const columnNames = [...grid.featureColumns, ...node.columnNames, ...(hasPackageRatio ? [PACKAGE_RATIO_COLUMN] : [])];
    let table: DataTable = { columnNames, rowCount: rows.rowCount, values: rows.values, timestamps: rows.timestamps, rowIds };
    if (options.extractor === "smooth") {
      table = smooth(table, [...grid.featureColumns, ...node.powerColumnNames], notices);
    }
    return {
      table,
      powerColumns: node.powerColumnNames,
      features: grid.featureColumns,
      correlationPowerColumn: node.powerColumnNames[0]!,
      correlations,
      validFeatureGroups: valid.reference,
      validHistoricalFeatureGroups: valid.extra,
      containerCount: rowIds === undefined ? 0 : new Set(rowIds).size,
      notices,
    };
  });
}

function correlate(nodeRows: GatheredRows, features: readonly string[]): FeatureCorrelation[] {
  const rows = nodeRows.rowCount;
  const planes = features.length;
  const power = nodeRows.values.subarray(planes * rows, (planes + 1) * rows);
  const r = pearsonWithTarget(nodeRows.values.subarray(0, planes * rows), rows, planes, power);
  return features.map((feature, index) => ({ feature, correlation: r[index]! }));
}

// One unit (`package`) and no usage-ratio metric: the ratio is 1/1 on every row. Added as one more
// row-level column, so the gathered rows come out with it (no copy of the whole table to append it).
function withPackageRatio(scope: WasmScope, block: F64Buffer, stride: number, nCols: number): F64Buffer {
  const extended = scope.own(F64Buffer.alloc(Math.max(1, stride * (nCols + 1))));
  const view = extended.view();
  view.set(block.view().subarray(0, stride * nCols));
  view.fill(1, stride * nCols, stride * (nCols + 1));
  return extended;
}

// SmoothExtractor: rolling(30).mean() of the feature and power columns over the rows as ordered
// (at container level the window spans containers, as in the reference), then dropna, which removes
// the first 29 rows.
function smooth(table: DataTable, columns: readonly string[], notices: string[]): DataTable {
  const n = table.rowCount;
  const position = new Map(table.columnNames.map((name, i) => [name, i]));
  const indices = columns.map((column) => position.get(column) ?? -1);
  const rolled = rollingMeanColumns(table.values, n, indices, SMOOTH_WINDOW);
  const start = Math.min(n, SMOOTH_WINDOW - 1);
  const kept = n - start;
  if (kept === 0)
    notices.push(`the smooth extractor needs at least ${SMOOTH_WINDOW} rows; the table has ${n}, so no row is left`);
  const values = new Float64Array(kept * table.columnNames.length);
  table.columnNames.forEach((_, column) => {
    values.set(rolled.subarray(column * n + start, (column + 1) * n), column * kept);
  });
  return {
    columnNames: table.columnNames,
    rowCount: kept,
    values,
    timestamps: table.timestamps.slice(start),
    rowIds: table.rowIds?.slice(start),
  };
}
