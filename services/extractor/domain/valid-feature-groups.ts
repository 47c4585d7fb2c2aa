// Which feature groups a response supports (reference get_valid_feature_group_from_queries, spec §1.2).
import {
  EXTRA_FEATURE_GROUP_NAMES,
  type ExtraFeatureGroupName,
  type FeatureGroupName,
  featuresOf,
  validExtraFeatureGroups,
  validFeatureGroups,
} from "../../domain/feature-groups.js";
import { type PrometheusResponse, sampleCount } from "../../domain/prometheus-response.js";
import { featureMetricName } from "./metric-names.js";

export interface ValidFeatureGroups {
  /** The reference's answer, in its dict order (Full is never valid this way, as in the reference). */
  readonly reference: FeatureGroupName[];
  /** Groups beyond the reference's dict (IRQOnly, CgroupOnly, KubeletOnly) the data also supports. */
  readonly extra: ExtraFeatureGroupName[];
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
  const extraFeatures = [...new Set(EXTRA_FEATURE_GROUP_NAMES.flatMap((group) => featuresOf(group)))].filter((feature) =>
    hasData(featureMetricName(feature, names)),
  );
  return { reference: validFeatureGroups(features, thirdPartyMetrics), extra: validExtraFeatureGroups(extraFeatures) };
}
