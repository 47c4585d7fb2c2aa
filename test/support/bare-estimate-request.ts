// An Estimate request that chooses nothing but its rows: AbsPower on rapl-sysfs, no system features,
// machine spec, trainer, filter or pipeline, so the estimator's own defaults decide.
import type { EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";

/** `values` are the rows packed row by row, `featureNames.length` to a row; `extra` overrides any field. */
export function bareEstimateRequest(
  featureNames: readonly string[],
  values: Float64Array,
  extra: Partial<EstimateRequest> = {},
): EstimateRequest {
  return {
    featureNames: [...featureNames],
    rowCount: values.length / featureNames.length,
    values: Buffer.from(values.buffer, values.byteOffset, values.byteLength),
    valueList: [],
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    energySource: "rapl-sysfs",
    systemFeatureNames: [],
    systemFeatureValues: [],
    trainerName: "",
    filter: "",
    unavailableFeatureNames: [],
    pipelineName: "",
    ...extra,
  };
}
