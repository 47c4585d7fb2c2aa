import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkpointText } from "./checkpoint-file.js";
import { publishModelArchive, readCheckpoint, writeCheckpoint } from "./local-model-folder.js";
import { createModelArchive } from "./model-archive.js";
import { createModelMetadata } from "./model-metadata.js";
import { readModelFolder } from "./read-model-folder.js";
import { createLinearWeights } from "./weight-json.js";
import { readZip } from "./zip-reader.js";

const location = {
  pipelineName: "std_v0.7.11",
  energySource: "acpi",
  outputType: "AbsPower" as const,
  featureGroup: "BPFOnly",
  modelName: "LinearRegressionTrainer_0",
};
const features = ["bpf_cpu_time_ms", "bpf_page_cache_hit"];

function archive(intercept: number) {
  return createModelArchive(location, {
    metadata: createModelMetadata({
      modelName: location.modelName,
      modelClass: "scikit",
      features,
      feFiles: [],
      outputType: "AbsPower",
      components: [{ component: "platform", maeWatts: 1.234, mapePercent: 0.5 }],
      nodeType: 0,
    }),
    features,
    scaler: { kind: "max_abs_scaler", format_version: 1, features, scale: [3991.5, 1] },
    featureEngineering: [],
    components: [["platform", { kind: "linear", format_version: 1, coefficients: [60.5, 0], intercept }]],
    weights: { platform: createLinearWeights(features, [3991.5, 1], [60.5, 0], intercept) },
  });
}

describe("publishModelArchive", () => {
  let modelPath: string;
  beforeEach(async () => {
    modelPath = await mkdtemp(join(tmpdir(), "model-path-"));
  });
  afterEach(async () => {
    await rm(modelPath, { recursive: true, force: true });
  });

  it("writes the kepler-model-db layout: folder + zip with weight.json inside both, replacing a previous version", async () => {
    await publishModelArchive(modelPath, archive(63.7));
    const published = await publishModelArchive(modelPath, archive(64.1));
    const group = join(modelPath, "std_v0.7.11", "acpi", "AbsPower", "BPFOnly");
    expect(published).toEqual({
      folderPath: join(group, "LinearRegressionTrainer_0"),
      zipPath: join(group, "LinearRegressionTrainer_0.zip"),
    });
    // No temporary or previous-version entries are left behind.
    expect((await readdir(group)).sort()).toEqual(["LinearRegressionTrainer_0", "LinearRegressionTrainer_0.zip"]);
    const files = ["LinearRegressionTrainer_0.json", "metadata.json", "platform.json", "scaler.json", "weight.json"];
    expect((await readdir(published.folderPath)).sort()).toEqual(files);
    const zip = readZip(await readFile(published.zipPath));
    expect(zip.map((e) => e.name).sort()).toEqual(files);

    const folder = await readModelFolder(published.folderPath);
    expect(folder.modelDict).toEqual({
      platform: { model_file: "platform.json", features, fe_files: ["scaler.json"] },
    });
    expect(folder.components.platform).toEqual({ kind: "linear", format_version: 1, coefficients: [60.5, 0], intercept: 64.1 });
    expect(folder.weights?.platform?.All_Weights.Bias_Weight).toBe(64.1);
    // Kepler fetching .../LinearRegressionTrainer_0/weight.json reads the trainer from model_name.
    const weightFile = JSON.parse(await readFile(join(published.folderPath, "weight.json"), "utf8"));
    expect(Object.keys(weightFile)).toEqual(["model_name", "platform"]);
    expect(weightFile.model_name).toBe("LinearRegressionTrainer_0");
    expect(folder.metadata.mae).toBe(1.23);
  });

  it("refuses a pipeline name that would leave the model folder", async () => {
    await expect(
      publishModelArchive(modelPath, { ...archive(1), location: { ...location, pipelineName: "../x" } }),
    ).rejects.toThrow('pipeline_name: "../x" is not a valid name');
  });
});

describe("checkpoints", () => {
  it("round-trip under <group>/checkpoint/<Trainer>_<component>_<node_type>.json", async () => {
    const modelPath = await mkdtemp(join(tmpdir(), "model-path-"));
    try {
      const checkpoint = {
        format_version: 1 as const,
        trainer: "SGDRegressorTrainer",
        component: "platform",
        node_type: 3,
        features,
        scale: [2, 1],
        model: {
          kind: "sgd" as const,
          format_version: 1 as const,
          coefficients: [1, 2],
          intercept: 3,
          t: 151,
          epochs: 1,
          converged: false,
        },
      };
      const path = await writeCheckpoint(modelPath, location, checkpoint);
      expect(path).toBe(join(modelPath, "std_v0.7.11/acpi/AbsPower/BPFOnly/checkpoint/SGDRegressorTrainer_platform_3.json"));
      expect(await readCheckpoint(modelPath, location, "SGDRegressorTrainer", "platform", 3)).toEqual(checkpoint);
      expect(await readCheckpoint(modelPath, location, "SGDRegressorTrainer", "platform", 4)).toBeUndefined();
      // The text made on a fit's thread from the model's JSON is the checkpoint's JSON, byte for byte.
      const text = checkpointText(checkpoint, JSON.stringify(checkpoint.model));
      expect(text).toBe(JSON.stringify(checkpoint));
      const written = await writeCheckpoint(modelPath, location, {
        trainer: "SGDRegressorTrainer",
        component: "platform",
        node_type: 4,
        text: text.replace('"node_type":3', '"node_type":4'),
      });
      expect(await readFile(written, "utf8")).toBe(JSON.stringify({ ...checkpoint, node_type: 4 }));
    } finally {
      await rm(modelPath, { recursive: true, force: true });
    }
  });
});
