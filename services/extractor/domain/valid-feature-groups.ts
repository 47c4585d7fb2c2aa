// Which feature groups a response supports (reference get_valid_feature_group_from_queries, spec §1.2).
import {
  CGROUP_FEATURES,
  type FeatureGroupName,
  type HistoricalFeatureGroupName,
  KUBELET_FEATURES,
  featuresOf,
  validFeatureGroups,
  validHistoricalFeatureGroups,
} from "../../domain/feature-groups.js";
import { type PrometheusResponse, sampleCount } from "../../domain/prometheus-response.js";
import { featureMetricName } from "./metric-names.js";

export interface ValidFeatureGroups {
  /** The reference's answer, in its dict order (Full is never valid this way, as in the reference). */
  readonly reference: FeatureGroupName[];
  /** Historical groups (CgroupOnly, KubeletOnly) the data also supports. */
  readonly historical: HistoricalFeatureGroupName[];
}

/**
 * The WorkloadOnly features whose metric has more than one sample (the reference CLI passes only
 * queries with more than one row), then every group made only of those features. In VM mode the
 * features are looked up as `kepler_process_*` (the reference only ever checks container metrics).
 */
export function validFeatureGroupsOf(
  response: PrometheusResponse,
  thirdPartyMetrics: readonly string[] = [],
  useVmMetrics = false,
): ValidFeatureGroups {
  const hasData = (metricName: string): boolean => sampleCount(response, metricName) > 1;
  const names = { useVmMetrics, thirdPartyMetrics };
  const features = featuresOf("WorkloadOnly", thirdPartyMetrics).filter((feature) => hasData(featureMetricName(feature, names)));
  const historical = [...CGROUP_FEATURES, ...KUBELET_FEATURES].filter((feature) => hasData(featureMetricName(feature, names)));
  return { reference: validFeatureGroups(features, thirdPartyMetrics), historical: validHistoricalFeatureGroups(historical) };
}
