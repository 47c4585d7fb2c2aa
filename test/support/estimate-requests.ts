// Estimate requests and models for the estimator's server tests: packed rows in Kepler v0.9's feature
// order, a request with every field set, a linear BPFOnly model spec, and component watts by name.
import type { EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { COLLECTOR_FEATURE_NAMES } from "../../services/mesh/estimate-example.js";
import { type TestModelSpec, bpfLinearSpec } from "./model-archives.js";

// Kepler v0.9's process feature names (kepler-collector §1.3), in its order.
export const KEPLER_METRICS = [...COLLECTOR_FEATURE_NAMES];
export const BPF = ["bpf_cpu_time_ms", "bpf_page_cache_hit"];
export const spec = (cores: number) => ({
  processor: "",
  cores,
  chips: 0,
  memoryGib: 0,
  frequencyMhz: 0,
  vendor: "",
  threadsPerCore: 0,
});

function packRows(rows: number[][]): Buffer {
  return Buffer.from(Float64Array.from(rows.flat()).buffer);
}

export function request(features: string[], rows: number[][], extra: Partial<EstimateRequest> = {}): EstimateRequest {
  return {
    featureNames: features,
    rowCount: rows.length,
    values: packRows(rows),
    valueList: [],
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    energySource: "rapl-sysfs",
    systemFeatureNames: ["cpu_architecture"],
    systemFeatureValues: ["Cascade Lake"],
    trainerName: "",
    filter: "",
    machineSpec: spec(48),
    unavailableFeatureNames: [],
    pipelineName: "",
    ...extra,
  };
}

export function keplerRow(bpfCpuTimeMs: number, pageCacheHit: number): number[] {
  const row = KEPLER_METRICS.map((_, i) => 1000 * (i + 1));
  row[4] = bpfCpuTimeMs;
  row[8] = pageCacheHit;
  return row;
}

export const powersOf = (response: { componentPowers: Array<{ component: string; powerWatts: number[] }> }) =>
  Object.fromEntries(response.componentPowers.map((c) => [c.component, c.powerWatts]));

export function linearModel(
  trainerName: string,
  maeWatts: number,
  intercept: number,
  pipelineName: string,
  extra: Partial<TestModelSpec> = {},
): TestModelSpec {
  return bpfLinearSpec(pipelineName, [intercept, 0, -5, 10], {
    trainerName,
    maeWatts,
    machineSpec: { processor: "intel_xeon_platinum_8259cl", cores: 96, chips: 2, memory: 377, frequency: 3500 },
    ...extra,
  });
}
