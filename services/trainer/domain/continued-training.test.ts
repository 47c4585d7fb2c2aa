// Continued training from checkpoints (spec §5.3 step 3): SGD continues from its checkpoint (coefficients,
// intercept, update count, and the scale it was fitted with); closed-form trainers refit from scratch.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { doubledFeatures, goldenTable, goldenTestTimestamps } from "../../../test/fixtures/trainer/fixtures.js";
import { useTrainModelFolder } from "../../../test/support/train-model-folder.js";
import { readCheckpoint, readModelFolder } from "../../models/index.js";
import { trainModels } from "./train-models.js";

describe("continued training", () => {
  const folder = useTrainModelFolder();

  const base = {
    energySource: "acpi",
    featureGroup: "CounterOnly",
    outputType: "AbsPower" as const,
    trainerNames: ["SGDRegressorTrainer", "LinearRegressionTrainer"],
    testTimestampsSeconds: goldenTestTimestamps("acpi"),
    pipelineName: "std_v0.7.11",
  };
  const group = join("std_v0.7.11", "acpi", "AbsPower", "CounterOnly");

  it("continues SGD from its checkpoint and scale; refits LinearRegression with a fresh scale", async () => {
    await trainModels({ ...base, table: goldenTable("acpi") }, folder.deps);
    const first = await readCheckpoint(
      folder.modelPath,
      { pipelineName: "std_v0.7.11", energySource: "acpi", outputType: "AbsPower", featureGroup: "CounterOnly" },
      "SGDRegressorTrainer",
      "platform",
      0,
    );
    if (first?.model.kind !== "sgd") throw new Error("no SGD checkpoint after the first run");
    // A fresh fit starts at t = 1 and adds one per sample: 150 training rows per epoch.
    expect(first.model.t).toBe(1 + 150 * first.model.epochs);

    const second = await trainModels(
      { ...base, table: doubledFeatures(goldenTable("acpi")), continueFromCheckpoint: true },
      folder.deps,
    );
    expect(second.results.map((r) => r.outcome)).toEqual(["succeeded", "succeeded"]);
    const sgd = await readModelFolder(join(folder.modelPath, group, "SGDRegressorTrainer_0"));
    const model = sgd.components.platform;
    if (model?.kind !== "sgd") throw new Error("no SGD model");
    expect(model.t).toBe(first.model.t + 150 * model.epochs);
    expect(sgd.scaler.scale).toEqual(first.scale);
    const linear = await readModelFolder(join(folder.modelPath, group, "LinearRegressionTrainer_0"));
    expect(linear.scaler.scale).toEqual(first.scale.map((s) => 2 * s));

    // Without --continue the checkpoint is ignored (and overwritten): SGD starts again at t = 1.
    await trainModels({ ...base, table: goldenTable("acpi") }, folder.deps);
    const fresh = JSON.parse(
      await readFile(join(folder.modelPath, group, "checkpoint", "SGDRegressorTrainer_platform_0.json"), "utf8"),
    );
    expect(fresh.model.t).toBe(first.model.t);
    expect(fresh.model.coefficients).toEqual(first.model.coefficients);
  });
});
