// What the reference's `kepler-model validate` reports about a saved response (cmd/cmd_util.py
// get_validate_df and summary_validation): per query its samples and the samples > 0, node energy
// queries split by their `source` label, and per feature group whether the data supports it (the
// reference's get_valid_feature_group_from_queries, which the extractor uses too). Container queries can
// be narrowed to the pods of one benchmark (the reference's `--benchmark` name filter on pod_name).
import { energySourceOfLabel } from "../../domain/energy-sources.js";
import {
  EXTRA_FEATURE_GROUP_NAMES,
  FEATURE_GROUP_NAMES,
  type FeatureGroupName,
  featuresOf,
} from "../../domain/feature-groups.js";
import type { PrometheusMetric, PrometheusResponse, PrometheusSeries } from "../../domain/prometheus-response.js";
import { countGreaterThan, vectorStats } from "../../../wasm-core/src/index.js";
import { SOURCE_LABEL, featureMetricName } from "./metric-names.js";
import type { SampleCounts } from "./sample-counts.js";
import { type ValidFeatureGroups, validFeatureGroupsOf } from "./valid-feature-groups.js";

/** Counts of one query, or of one energy source's series of a node energy query. */
export interface QueryValidation extends SampleCounts {
  readonly query: string;
  /** The canonical energy source of a node energy query's series (a label we do not model verbatim); "" otherwise. */
  readonly energySource: string;
  /** Series with at least one sample > 0 (the reference's per-pod "availability"). */
  readonly positiveSeriesCount: number;
  /** The largest sample (the reference's `total` column), null without samples. */
  readonly maxValue: number | null;
}

/** One feature of a group: the query it is read from and that query's counts. */
export interface FeatureValidation extends SampleCounts {
  readonly feature: string;
  readonly query: string;
}

/** A feature group: valid or not, why, and the summed counts of its features' queries. */
export interface FeatureGroupValidation extends SampleCounts {
  readonly featureGroup: FeatureGroupName;
  readonly valid: boolean;
  /** A group the reference removed (CgroupOnly, KubeletOnly) that old recordings still support. */
  readonly extra: boolean;
  /** Features whose query has at most one sample (the reference's test for a usable query). */
  readonly missingFeatures: readonly string[];
  /** Why a group with every feature present is still invalid; "" otherwise. */
  readonly note: string;
  readonly features: readonly FeatureValidation[];
}

/** The whole report. */
export interface ResponseValidation {
  /** Ordered by query name, then energy source. */
  readonly queries: readonly QueryValidation[];
  /** The reference's groups in its dict order (ThirdParty only with third-party metrics), then the extra ones (IRQOnly, CgroupOnly, KubeletOnly). */
  readonly featureGroups: readonly FeatureGroupValidation[];
  readonly validFeatureGroups: ValidFeatureGroups;
  /** Canonical sources of the node energy series. */
  readonly energySources: readonly string[];
}

const NODE_ENERGY_QUERY = /^kepler_(node|vm)_.+_joules_total$/;
const FULL_NOTE = "the reference never selects Full: its system features are not among the checked queries";

function countSeries(query: string, energySource: string, metric: PrometheusMetric, series: readonly PrometheusSeries[]) {
  const values = new Float64Array(series.reduce((total, s) => total + s.length, 0));
  let offset = 0;
  let positiveSeriesCount = 0;
  for (const s of series) {
    const samples = metric.values.subarray(s.offset, s.offset + s.length);
    values.set(samples, offset);
    offset += s.length;
    if (s.length > 0 && countGreaterThan(samples, 0) > 0) positiveSeriesCount++;
  }
  return {
    query,
    energySource,
    seriesCount: series.length,
    positiveSeriesCount,
    sampleCount: values.length,
    positiveSampleCount: values.length === 0 ? 0 : countGreaterThan(values, 0),
    maxValue: values.length === 0 ? null : vectorStats(values).max,
  };
}

/** The label naming a container's pod (the reference's pod_name column). */
const POD_NAME_LABEL = "pod_name";

// A node energy query is split by source, as the reference reports each PowerSourceMap source apart; a
// container query keeps only the series of matching pods when a pod filter is given.
function queryValidations(metric: PrometheusMetric, podNameContains: string): QueryValidation[] {
  if (podNameContains !== "" && metric.name.includes("container")) {
    const pods = metric.series.filter((series) => (series.labels[POD_NAME_LABEL] ?? "").includes(podNameContains));
    return [countSeries(metric.name, "", metric, pods)];
  }
  if (!NODE_ENERGY_QUERY.test(metric.name) || metric.series.length === 0)
    return [countSeries(metric.name, "", metric, metric.series)];
  const bySource = new Map<string, PrometheusSeries[]>();
  for (const series of metric.series) {
    const label = series.labels[SOURCE_LABEL] ?? "";
    const source = energySourceOfLabel(label) ?? label;
    bySource.set(source, [...(bySource.get(source) ?? []), series]);
  }
  return [...bySource.keys()].sort().map((source) => countSeries(metric.name, source, metric, bySource.get(source)!));
}

function emptyCounts(query: string): QueryValidation {
  return {
    query,
    energySource: "",
    seriesCount: 0,
    positiveSeriesCount: 0,
    sampleCount: 0,
    positiveSampleCount: 0,
    maxValue: null,
  };
}

/**
 * Validates a parsed response as the reference's `validate` does, plus the feature groups it supports.
 * With `podNameContains`, container queries count only the series of pods whose name contains it; the
 * valid feature groups are still judged on the whole response, as the extractor judges them.
 */
export function validateResponse(
  response: PrometheusResponse,
  options: { thirdPartyMetrics?: readonly string[]; useVmMetrics?: boolean; podNameContains?: string } = {},
): ResponseValidation {
  const thirdPartyMetrics = options.thirdPartyMetrics ?? [];
  const useVmMetrics = options.useVmMetrics ?? false;
  const metrics = [...response.metrics.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const queries = metrics.flatMap((metric) => queryValidations(metric, options.podNameContains ?? ""));
  const totals = (query: string): QueryValidation => {
    const rows = queries.filter((row) => row.query === query);
    if (rows.length === 0) return emptyCounts(query);
    return rows.reduce((sum, row) => ({
      ...sum,
      seriesCount: sum.seriesCount + row.seriesCount,
      sampleCount: sum.sampleCount + row.sampleCount,
      positiveSampleCount: sum.positiveSampleCount + row.positiveSampleCount,
    }));
  };
  const valid = validFeatureGroupsOf(response, thirdPartyMetrics, useVmMetrics);
  const groups = FEATURE_GROUP_NAMES.filter((group) => group !== "ThirdParty" || thirdPartyMetrics.length > 0);
  const featureGroups = groups.map((featureGroup): FeatureGroupValidation => {
    const features = featuresOf(featureGroup, thirdPartyMetrics).map((feature) => {
      const { query, seriesCount, sampleCount, positiveSampleCount } = totals(
        featureMetricName(feature, { useVmMetrics, thirdPartyMetrics }),
      );
      return { feature, query, seriesCount, sampleCount, positiveSampleCount };
    });
    const isValid = (valid.reference as string[]).includes(featureGroup) || (valid.extra as string[]).includes(featureGroup);
    const missingFeatures = features.filter((f) => f.sampleCount <= 1).map((f) => f.feature);
    return {
      featureGroup,
      valid: isValid,
      extra: (EXTRA_FEATURE_GROUP_NAMES as readonly string[]).includes(featureGroup),
      missingFeatures,
      note: !isValid && missingFeatures.length === 0 && featureGroup === "Full" ? FULL_NOTE : "",
      seriesCount: features.reduce((n, f) => n + f.seriesCount, 0),
      sampleCount: features.reduce((n, f) => n + f.sampleCount, 0),
      positiveSampleCount: features.reduce((n, f) => n + f.positiveSampleCount, 0),
      features,
    };
  });
  const energySources = [...new Set(queries.filter((row) => row.energySource !== "").map((row) => row.energySource))].sort();
  return { queries, featureGroups, validFeatureGroups: valid, energySources };
}
