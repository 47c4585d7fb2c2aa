// The pipeline's metadata.json: reference keys in order, UTC times as the reference's time_to_str,
// reruns keep init_time and foreign keys and merge the trainer lists.
import { describe, expect, it } from "vitest";
import { createPipelineMetadata, formatUtcTime } from "./pipeline-metadata.js";

const base = {
  pipelineName: "std_v0.7.11",
  isolator: "min",
  extractor: "default",
  absTrainerNames: ["SGDRegressorTrainer", "LinearRegressionTrainer"],
  dynTrainerNames: ["SGDRegressorTrainer"],
  useVmMetrics: false,
} as const;

describe("pipeline metadata.json", () => {
  it("formats UTC seconds as YYYY-MM-DD HH:MM:SS", () => {
    expect(formatUtcTime(1695361425.9)).toBe("2023-09-22 05:43:45");
    expect(formatUtcTime(0)).toBe("1970-01-01 00:00:00");
  });

  it("writes the reference's keys in order on the first run", () => {
    const text = createPipelineMetadata({ ...base, nowSeconds: 1695361425 });
    expect(text).toBe(
      JSON.stringify({
        name: "std_v0.7.11",
        isolator: "min",
        extractor: "default",
        abs_trainers: ["SGDRegressorTrainer", "LinearRegressionTrainer"],
        dyn_trainers: ["SGDRegressorTrainer"],
        metric_type: "bm_metrics",
        init_time: "2023-09-22 05:43:45",
        last_update_time: "2023-09-22 05:43:45",
      }),
    );
  });

  it("on a rerun keeps init_time and foreign keys, merges trainers once each and updates the rest", () => {
    const previous = JSON.stringify({
      name: "std_v0.7.11",
      isolator: "profile",
      extractor: "default",
      abs_trainers: ["KNeighborsRegressorTrainer", "SGDRegressorTrainer", "SGDRegressorTrainer"],
      dyn_trainers: [],
      metric_type: "bm_metrics",
      init_time: "2023-01-01 00:00:00",
      last_update_time: "2023-01-02 00:00:00",
      publisher: "someone",
    });
    const metadata = JSON.parse(
      createPipelineMetadata({ ...base, useVmMetrics: true, nowSeconds: 1695361425, previousText: previous }),
    );
    expect(metadata).toEqual({
      name: "std_v0.7.11",
      isolator: "min",
      extractor: "default",
      abs_trainers: ["KNeighborsRegressorTrainer", "SGDRegressorTrainer", "LinearRegressionTrainer"],
      dyn_trainers: ["SGDRegressorTrainer"],
      metric_type: "vm_metrics",
      init_time: "2023-01-01 00:00:00",
      last_update_time: "2023-09-22 05:43:45",
      publisher: "someone",
    });
    expect(Object.keys(metadata).at(-1)).toBe("publisher");
  });

  it("treats unreadable previous metadata as none", () => {
    const metadata = JSON.parse(createPipelineMetadata({ ...base, nowSeconds: 0, previousText: "not json" }));
    expect(metadata.init_time).toBe("1970-01-01 00:00:00");
  });
});
