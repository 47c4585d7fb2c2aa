// The straight-to-bytes answers equal the generated encoder's output byte for byte, over the shapes an
// answer takes: rows 0, 1 and many, empty and non-ASCII strings, a core ratio of 0 (omitted) or not,
// a model with and without provenance.
import { describe, expect, it } from "vitest";
import { EstimateResponse, EstimateStreamResponse } from "../generated/kepler/model/v1/estimator_service.js";
import { ModelLocation, ModelSelection } from "../generated/kepler/model/v1/model.js";
import { MachineSpec, OutputType } from "../generated/kepler/model/v1/types.js";
import type { EstimateResult } from "./domain/estimate-power.js";
import type { LoadedModel } from "./domain/loaded-model.js";
import { estimateResponseBytes, estimateStreamAnswerBytes } from "./estimate-bytes.js";
import type { RegistryProvenance } from "./registry-model-source.js";
import { encodeEstimateResult } from "./server.js";

const bare: LoadedModel<RegistryProvenance> = {
  modelName: "",
  maeWatts: 0,
  featureGroup: "",
  modelCores: 0,
  features: [],
  predictor: undefined as never,
  provenance: {},
};
const full: LoadedModel<RegistryProvenance> = {
  modelName: "LinearRegressionTrainer_0",
  maeWatts: 1.25,
  featureGroup: "BPFOnly",
  modelCores: 96,
  features: ["bpf_cpu_time_ms"],
  predictor: undefined as never,
  provenance: {
    selection: ModelSelection.fromPartial({ featureGroup: "BPFOnly", validFeatureGroups: ["BPFOnly", "Basic"], maeWatts: 1.25 }),
    location: ModelLocation.fromPartial({
      pipelineName: "std_v0.7.11",
      energySource: "rapl-sysfs",
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      featureGroup: "BPFOnly",
      modelName: "LinearRegressionTrainer_0",
    }),
    machineSpec: MachineSpec.fromPartial({ processor: "Intel(R) Xeon(R) Platinum 8259CL — “ünïcode”", cores: 96, chips: 2 }),
  },
};

const watts = (count: number, base: number) => Float64Array.from({ length: count }, (_, i) => base + i * 0.37);

const results: Array<EstimateResult<RegistryProvenance>> = [
  { componentPowers: [], rowCount: 0, model: bare, coreRatio: 0 },
  {
    componentPowers: ["package", "core", "uncore", "dram"].map((component, i) => ({ component, powerWatts: watts(1, 10 + i) })),
    rowCount: 1,
    model: full,
    coreRatio: 1,
  },
  {
    componentPowers: [
      { component: "platform", powerWatts: watts(300, 100) },
      { component: "", powerWatts: watts(0, 0) },
    ],
    rowCount: 300,
    model: full,
    coreRatio: 0.5,
  },
  { componentPowers: [{ component: "package", powerWatts: watts(20_000, 1) }], rowCount: 20_000, model: bare, coreRatio: 0 },
  // Prediction intervals: bounds per row, a half width, the level; a component without calibration beside one with.
  {
    componentPowers: [
      { component: "package", powerWatts: watts(3, 5), lowerWatts: watts(3, 1), upperWatts: watts(3, 9), halfWidthWatts: 4 },
      { component: "core", powerWatts: watts(3, 0) },
      { component: "dram", powerWatts: watts(3, 2), lowerWatts: watts(3, 0), upperWatts: watts(3, 4), halfWidthWatts: 0 },
    ],
    rowCount: 3,
    model: full,
    coreRatio: 1,
    intervalLevel: 0.9,
  },
];

describe("estimate answers written straight to bytes", () => {
  it.each(results.map((result, index) => [index, result] as const))("case %i: EstimateResponse bytes", (_, result) => {
    const generated = EstimateResponse.encode(encodeEstimateResult(result)).finish();
    expect(Buffer.from(estimateResponseBytes(result)).equals(Buffer.from(generated))).toBe(true);
  });

  it.each(results.map((result, index) => [index, result] as const))("case %i: EstimateStreamResponse bytes", (_, result) => {
    for (const requestId of ["", "7", "node-1/é✓".repeat(20)]) {
      const generated = EstimateStreamResponse.encode({
        requestId,
        result: { $case: "estimate", value: encodeEstimateResult(result) },
      }).finish();
      expect(Buffer.from(estimateStreamAnswerBytes(requestId, result)).equals(Buffer.from(generated))).toBe(true);
    }
  });
});
