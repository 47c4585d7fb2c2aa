// Per-container workload feature rates on one timestamp axis (reference get_workload_feature_data,
// spec §3.2): for each feature and container key, the counter's per-second rate with each row's own
// step, the first sample giving 0 and a decrease repeating the previous rate (mask(<0) -> ffill ->
// fillna(0)). Node-level metrics without container labels (the accelerator, node-level third-party
// metrics) become one column named after the feature, the per-timestamp sum of their series, on one
// extra row key. The reference splits them by a `type` label into `<feature>_<type>` columns that
// neither its trainer (it reads the group's `accelerator_intel_qat`) nor Kepler's requests know, so
// we keep the one name the groups, models and requests use (docs/deviations.md).
import { InvalidInputError } from "../../domain/errors.js";
import type { PrometheusMetric, PrometheusResponse } from "../../domain/prometheus-response.js";
import {
  F64Buffer,
  type F64Slice,
  accumulateOnAxis,
  counterToRateOnSlices,
  countDecreases,
  overlayLatestChange,
  sliceOf,
  unionOfSorted,
  withBuffers,
} from "../../../wasm-core/src/index.js";
import { assertFiniteSeries, labelOf, requireMetric, seriesTimestamps, seriesValues, withMetricBlock } from "./metric-block.js";
import { CONTAINER_KEY_LABELS, PROCESS_KEY_LABELS, VM_JOB_NAME, featureMetricName } from "./metric-names.js";
import type { WasmScope } from "./wasm-scope.js";

/**
 * The row id of node-level feature columns at container level. The reference concatenates these rows
 * without an id and fills the missing id with 0, so they form one pseudo-container "0".
 */
const NODE_LEVEL_ROW_ID = "0";

/** Rates on a planes x keys x steps grid, with a keys x steps presence count. */
export interface WorkloadGrid {
  readonly axis: F64Buffer;
  readonly keys: readonly string[];
  /** One name per plane: the container features, then the node-level features. */
  readonly featureColumns: readonly string[];
  readonly grid: F64Buffer;
  /** presence[k][t] > 0 where key k has a row at step t (any feature). */
  readonly presence: F64Buffer;
}

export interface WorkloadGridOptions {
  readonly features: readonly string[];
  readonly useVmMetrics: boolean;
  readonly thirdPartyMetrics: readonly string[];
  /** For error messages: the feature group being extracted. */
  readonly featureGroup: string;
}

interface ContainerPlan {
  readonly kind: "container";
  readonly column: string;
  readonly metric: PrometheusMetric;
  /** Per key, its series (merged by time when there are several). */
  readonly segments: ReadonlyMap<string, readonly number[]>;
}

interface NodeLevelPlan {
  readonly kind: "node";
  readonly column: string;
  readonly metric: PrometheusMetric;
  readonly series: readonly number[];
}

type Plan = ContainerPlan | NodeLevelPlan;

/** Builds the rate grid of the workload features; notices collect the documented handling applied. */
export function buildWorkloadGrid(
  scope: WasmScope,
  response: PrometheusResponse,
  options: WorkloadGridOptions,
  notices: string[],
): WorkloadGrid {
  const plans = options.features.flatMap((feature) => planFeature(response, feature, options, notices));
  // As the reference, node-level features move after the container features.
  const ordered = [...plans.filter((plan) => plan.kind === "container"), ...plans.filter((plan) => plan.kind === "node")];
  const keySet = new Set<string>();
  for (const plan of ordered) {
    if (plan.kind === "container") for (const key of plan.segments.keys()) keySet.add(key);
    else keySet.add(NODE_LEVEL_ROW_ID);
  }
  const keys = [...keySet].sort();
  const keyIndex = new Map(keys.map((key, index) => [key, index]));

  const axis = scope.own(unionOfSorted(metricAxes(ordered)));
  const steps = axis.length;
  const grid = scope.zeros(Math.max(1, ordered.length * keys.length * steps));
  const presence = scope.zeros(Math.max(1, keys.length * steps));
  const cell = (plane: number, key: number): F64Slice => sliceOf(grid, (plane * keys.length + key) * steps, steps);
  const presenceOf = (key: number): F64Slice => sliceOf(presence, key * steps, steps);

  ordered.forEach((plan, plane) =>
    withMetricBlock(plan.metric, (block) => {
      if (plan.kind === "node") {
        const key = keyIndex.get(NODE_LEVEL_ROW_ID)!;
        for (const index of plan.series) {
          accumulateOnAxis(axis, seriesTimestamps(block, index), seriesValues(block, index), cell(plane, key), presenceOf(key));
        }
        return;
      }
      const resets = { decreases: 0, containers: 0 };
      const overlaps = { samples: 0, containers: 0 };
      const longest = Math.max(...[...plan.segments.values()].map((segment) => segmentLength(plan.metric, segment)));
      const rates = scope.zeros(longest);
      const joinedCounts = scope.zeros(longest);
      const joinedValues = scope.zeros(longest);
      const joinedChanges = scope.zeros(longest);
      for (const [key, segment] of plan.segments) {
        let timestamps: F64Slice;
        let values: F64Slice;
        if (segment.length === 1) {
          timestamps = seriesTimestamps(block, segment[0]!);
          values = seriesValues(block, segment[0]!);
        } else {
          // One container split over several series (Kepler's `command` label changing back and forth, a
          // restarted exporter): the reference sorts all their samples by time before taking rates, so
          // they are merged on their joint axis. Where two series share a step, Prometheus is repeating a
          // stopped series through its lookback window (no staleness marker in backfilled data): the
          // series that changed most recently is the live one (docs/deviations.md).
          const merged = scope.own(unionOfSorted(segment.map((index) => seriesTimestamps(block, index))));
          const n = merged.length;
          const mergedValues = sliceOf(joinedValues, 0, n);
          const changes = sliceOf(joinedChanges, 0, n);
          const counts = sliceOf(joinedCounts, 0, n);
          for (const buffer of [joinedValues, joinedChanges, joinedCounts]) buffer.view().fill(0, 0, n);
          let shared = 0;
          for (const index of segment)
            shared += overlayLatestChange(
              merged,
              seriesTimestamps(block, index),
              seriesValues(block, index),
              mergedValues,
              changes,
              counts,
            );
          if (shared > 0) {
            overlaps.samples += shared;
            overlaps.containers++;
          }
          timestamps = merged;
          values = mergedValues;
        }
        const n = timestamps.length;
        const rateSlice = sliceOf(rates, 0, n);
        counterToRateOnSlices(timestamps, values, rateSlice, "repeat-previous");
        const decreases = countDecreases(values);
        if (decreases > 0) {
          resets.decreases += decreases;
          resets.containers++;
        }
        const k = keyIndex.get(key)!;
        accumulateOnAxis(axis, timestamps, rateSlice, cell(plane, k), presenceOf(k));
      }
      if (overlaps.samples > 0) {
        notices.push(
          `${plan.metric.name}: ${overlaps.samples} sample(s) of ${overlaps.containers} container(s) fell on steps another series of the same container also had (Prometheus repeats a stopped series through its lookback window when no staleness marker ends it); the series that changed most recently was kept`,
        );
      }
      if (resets.decreases > 0) {
        notices.push(
          `${plan.metric.name}: ${resets.decreases} counter decrease(s) in ${resets.containers} container(s) read as resets (the previous rate is repeated, as in the reference)`,
        );
      }
    }),
  );
  noteContainerLifetimes(ordered, axis, notices);
  return { axis, keys, featureColumns: ordered.map((plan) => plan.column), grid, presence };
}

/**
 * Per plan, the union of the timestamps of the series it uses, computed with only that metric's
 * timestamps in wasm memory. Their union is the grid's axis (a union of unions is the union).
 */
function* metricAxes(plans: readonly Plan[]): Generator<F64Buffer> {
  for (const plan of plans) {
    const used = plan.kind === "container" ? [...plan.segments.values()].flat() : plan.series;
    const timestamps = F64Buffer.from(plan.metric.timestamps);
    const axis = withBuffers([timestamps], () =>
      unionOfSorted(
        used.map((index) => sliceOf(timestamps, plan.metric.series[index]!.offset, plan.metric.series[index]!.length)),
      ),
    );
    try {
      yield axis;
    } finally {
      axis.free();
    }
  }
}

function segmentLength(metric: PrometheusMetric, segment: readonly number[]): number {
  return segment.reduce((total, index) => total + metric.series[index]!.length, 0);
}

function planFeature(response: PrometheusResponse, feature: string, options: WorkloadGridOptions, notices: string[]): Plan[] {
  const name = featureMetricName(feature, options);
  const metric = requireMetric(response, name, `feature ${feature} of group ${options.featureGroup}`);
  const keyLabels: readonly string[] = options.useVmMetrics ? PROCESS_KEY_LABELS : CONTAINER_KEY_LABELS;
  // As in the reference, the container path applies when every key label is a column of the metric's
  // table, i.e. appears on at least one series.
  const hasKeyLabels = keyLabels.every((label) => metric.series.some((series) => label in series.labels));
  if (!hasKeyLabels) return [planNodeLevel(metric, feature)];

  const byKey = new Map<string, number[]>();
  metric.series.forEach((series, index) => {
    const isVm = labelOf(series.labels, "job") === VM_JOB_NAME;
    if (isVm !== options.useVmMetrics) return;
    const key = keyLabels.map((label) => labelOf(series.labels, label)).join("/");
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [index]);
    else list.push(index);
  });
  const segments = new Map<string, number[]>();
  let singleSample = 0;
  for (const [key, indices] of byKey) {
    // In order of their first sample, so a series that started later wins ties when merged.
    const ordered = indices
      .filter((index) => metric.series[index]!.length > 0)
      .sort((a, b) => firstTimestamp(metric, a) - firstTimestamp(metric, b) || a - b);
    if (segmentLength(metric, ordered) < 2) {
      singleSample++;
      continue;
    }
    for (const index of ordered) assertFiniteSeries(metric, index);
    segments.set(key, ordered);
  }
  if (singleSample > 0) {
    notices.push(
      `${name}: ${singleSample} container(s) with a single sample skipped (a rate needs two samples), as the reference does`,
    );
  }
  if (segments.size === 0) {
    throw new InvalidInputError(
      `response.${name}`,
      `no ${options.useVmMetrics ? `job="${VM_JOB_NAME}"` : `non-VM (job!="${VM_JOB_NAME}")`} container series with at least two samples`,
    );
  }
  return [{ kind: "container", column: feature, metric, segments }];
}

function planNodeLevel(metric: PrometheusMetric, feature: string): NodeLevelPlan {
  const series = metric.series.flatMap((entry, index) => (entry.length > 0 ? [index] : []));
  for (const index of series) assertFiniteSeries(metric, index);
  if (series.length === 0) {
    throw new InvalidInputError(`response.${metric.name}`, "the node-level metric has no samples");
  }
  return { kind: "node", column: feature, metric, series };
}

function firstTimestamp(metric: PrometheusMetric, index: number): number {
  return metric.timestamps[metric.series[index]!.offset]!;
}

function lastTimestamp(metric: PrometheusMetric, index: number): number {
  const series = metric.series[index]!;
  return metric.timestamps[series.offset + series.length - 1]!;
}

// Containers that start late or stop early are kept only where they have samples, as the reference
// does; their first sample gives rate 0. Said once per extraction so a user can see it happened.
function noteContainerLifetimes(plans: readonly Plan[], axis: F64Buffer, notices: string[]): void {
  if (axis.length === 0) return;
  const view = axis.view();
  const start = view[0]!;
  const end = view[view.length - 1]!;
  const late = new Set<string>();
  const early = new Set<string>();
  for (const plan of plans) {
    if (plan.kind !== "container") continue;
    for (const [key, segment] of plan.segments) {
      if (firstTimestamp(plan.metric, segment[0]!) > start) late.add(key);
      if (Math.max(...segment.map((index) => lastTimestamp(plan.metric, index))) < end) early.add(key);
    }
  }
  if (late.size > 0 || early.size > 0) {
    notices.push(
      `${late.size} container(s) appear after the first timestamp (their first sample counts as rate 0, as in the reference) and ${early.size} vanish before the last; each contributes rows only where it has samples`,
    );
  }
}
