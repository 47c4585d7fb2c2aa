// Domain test: the registry keeps the pipeline's `<source>_<OutputType>_model_metadata.csv` (the
// reference's per-pipeline model table) in step with what it holds.
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { buildTestArchive, type TestModelSpec } from "../../../test/support/model-archives.js";
import { LocalFolderStorage } from "../storage/local/local-folder-storage.js";
import { ModelCatalogue } from "./model-catalogue.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "model-table-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function spec(featureGroup: string, trainerName: string, maeWatts: number): TestModelSpec {
  const features =
    featureGroup === "BPFOnly" ? ["bpf_cpu_time_ms", "bpf_page_cache_hit"] : ["cache_miss", "cpu_cycles", "cpu_instructions"];
  return {
    pipelineName: "std",
    energySource: "acpi",
    featureGroup,
    trainerName,
    nodeType: 0,
    features,
    scale: features.map(() => 1),
    maeWatts,
    model: { kind: "linear", components: [{ intercept: 1, coefficients: features.map(() => 1) }] },
    withWeights: true,
  };
}

it("writes one row per model, sorted by feature group then MAE, and follows removals", async () => {
  const store = await ModelCatalogue.open(await LocalFolderStorage.open(dir, quiet), { logger: quiet });
  for (const model of [
    spec("CounterOnly", "SGDRegressorTrainer", 7.5),
    spec("BPFOnly", "SGDRegressorTrainer", 4),
    spec("CounterOnly", "LinearRegressionTrainer", 2.25),
  ]) {
    await store.publish(buildTestArchive(model));
  }
  const tablePath = join(dir, "std", "acpi_AbsPower_model_metadata.csv");
  const lines = (await readFile(tablePath, "utf8")).trimEnd().split("\n");
  expect(lines[0]).toBe(
    ",model_name,model_class,model_file,features,fe_files,output_type,mae,mape,platform_mae,platform_mape,node_type,trainer,feature_group",
  );
  const rows = lines.slice(1).map((line) => line.split(",").slice(0, 2).concat(line.split(",").slice(-2)));
  expect(rows).toEqual([
    ["0", "SGDRegressorTrainer_0", "SGDRegressorTrainer", "BPFOnly"],
    ["1", "LinearRegressionTrainer_0", "LinearRegressionTrainer", "CounterOnly"],
    ["2", "SGDRegressorTrainer_0", "SGDRegressorTrainer", "CounterOnly"],
  ]);
  // Lists are written as pandas writes a Python list cell, quoted because they hold commas.
  expect(lines[1]).toContain(`"['bpf_cpu_time_ms', 'bpf_page_cache_hit']"`);
  expect(lines[2]).toMatch(/,AbsPower,2\.25,5\.0,2\.25,5\.0,0,/);

  await store.remove({
    pipelineName: "std",
    energySource: "acpi",
    outputType: "AbsPower",
    featureGroup: "BPFOnly",
    modelName: "SGDRegressorTrainer_0",
  });
  expect((await readFile(tablePath, "utf8")).trimEnd().split("\n")).toHaveLength(3);
  for (const modelName of ["LinearRegressionTrainer_0", "SGDRegressorTrainer_0"]) {
    await store.remove({
      pipelineName: "std",
      energySource: "acpi",
      outputType: "AbsPower",
      featureGroup: "CounterOnly",
      modelName,
    });
  }
  await expect(stat(tablePath)).rejects.toThrow(/ENOENT/);
  store.close();
});
