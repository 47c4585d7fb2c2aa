import { describe, expect, it } from "vitest";
import { createModelMetadata, roundTo2 } from "./model-metadata.js";

describe("roundTo2", () => {
  it("matches Python's round(x, 2), ties to even on the exact binary value", () => {
    // Python: round(0.125, 2) = 0.12, round(0.375, 2) = 0.38, round(2.675, 2) = 2.67 (2.675 is below in binary),
    // round(1.005, 2) = 1.0, round(-0.125, 2) = -0.12, round(60.784, 2) = 60.78
    expect([0.125, 0.375, 2.675, 1.005, -0.125, 60.784].map(roundTo2)).toEqual([0.12, 0.38, 2.67, 1, -0.12, 60.78]);
  });

  it("keeps -1 (the MAPE of a component with no positive test row)", () => {
    expect(roundTo2(-1)).toBe(-1);
  });
});

describe("createModelMetadata", () => {
  it("writes the reference keys in the reference order, then node_type, then format_version", () => {
    const metadata = createModelMetadata({
      modelName: "SGDRegressorTrainer_0",
      modelClass: "scikit",
      features: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
      feFiles: [],
      outputType: "AbsPower",
      components: [
        { component: "package", maeWatts: 60.7812, mapePercent: 50.9349 },
        { component: "core", maeWatts: 0, mapePercent: -1 },
        { component: "uncore", maeWatts: 0, mapePercent: -1 },
        { component: "dram", maeWatts: 3.1651, mapePercent: 17.771 },
      ],
      nodeType: 0,
    });
    // mape is the max (50.93), not the last component's (17.77) as the reference stores.
    expect(JSON.stringify(metadata)).toBe(
      '{"model_name":"SGDRegressorTrainer_0","model_class":"scikit","model_file":"SGDRegressorTrainer_0.json",' +
        '"features":["bpf_cpu_time_ms","bpf_page_cache_hit"],"fe_files":[],"output_type":"AbsPower","mae":60.78,"mape":50.93,' +
        '"node_type":0,"package_mae":60.78,"core_mae":0,"uncore_mae":0,"dram_mae":3.17,' +
        '"package_mape":50.93,"core_mape":-1,"uncore_mape":-1,"dram_mape":17.77,"format_version":1}',
    );
  });
});
