// The smallest servable archive the registry tests publish: one feature, one linear component.
import { buildTestArchive, type TestArchive } from "./model-archives.js";

/** SGDRegressorTrainer_0 of pipeline "std" (acpi, BPFOnly) on bpf_cpu_time_ms: intercept 1, coefficient 2, MAE 3 W. */
export function oneFeatureArchive(): TestArchive {
  return buildTestArchive({
    pipelineName: "std",
    energySource: "acpi",
    featureGroup: "BPFOnly",
    trainerName: "SGDRegressorTrainer",
    nodeType: 0,
    features: ["bpf_cpu_time_ms"],
    scale: [1],
    maeWatts: 3,
    model: { kind: "linear", components: [{ intercept: 1, coefficients: [2] }] },
  });
}
