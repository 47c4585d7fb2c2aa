// `kepler-model evaluate` on a DynPower model (checked on the reference's isolate_min table) and on a model
// imported from kepler-model-db, trained as in evaluate.test.ts.
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readIsolatorGolden } from "../../test/fixtures/isolator/goldens.js";
import { evaluateJson, evaluateText } from "../../test/support/evaluate-cli.js";
import {
  columnsOf,
  errors,
  linearPredictions,
  modelPath,
  PIPELINE,
  relative,
  useEvaluatedModels,
} from "../../test/support/evaluated-models.js";

useEvaluatedModels();

describe("kepler-model evaluate", () => {
  it("--output-type DynPower: the model on the min-isolated recording, checked on the reference's isolate_min table", async () => {
    const report = await evaluateJson(["--output-type", "DynPower", "--in-sample"]);
    expect(report.models).toHaveLength(1);
    const [model] = report.models;
    const golden = readIsolatorGolden("isolate_min_rapl-sysfs_CounterOnly.csv");
    const column = columnsOf(golden.header, golden.rows);
    const modelFolder = join(modelPath, PIPELINE, "rapl-sysfs", "DynPower", "CounterOnly", "LinearRegressionTrainer_0");
    expect(model!.rowCount).toBe(golden.rows.length);
    const expected = errors(column("package_power"), await linearPredictions(modelFolder, "package", column));
    const ours = model!.components.find((c) => c.component === "package")!;
    // The isolated labels are differences (power minus its minimum), equal to the golden within 1e-9 relative.
    expect(relative(ours.maeWatts, expected.mae)).toBeLessThan(1e-9);
    expect(relative(ours.maxErrorWatts, expected.max)).toBeLessThan(1e-9);

    // A pipeline trained with the profile isolator: evaluated with min, and said so.
    const profiled = join(modelPath, "profiled");
    await cp(modelFolder, join(profiled, "rapl-sysfs", "DynPower", "CounterOnly", "LinearRegressionTrainer_0"), {
      recursive: true,
    });
    await writeFile(
      join(profiled, "metadata.json"),
      JSON.stringify({ name: "profiled", isolator: "profile", extractor: "default" }),
    );
    const stdout = await evaluateText(["--output-type", "DynPower", "--in-sample"], { pipeline: "profiled" });
    expect(stdout).toContain("\nnote: the pipeline was trained with the profile isolator; the recording is isolated with min\n");
    expect(stdout).toContain(`  package    187 in-sample  ${expected.mae.toFixed(4)}  `);
  });

  it("evaluates a model imported from kepler-model-db (metadata.json and weight.json only) like ours", async () => {
    const ours = join(modelPath, PIPELINE, "rapl-sysfs", "AbsPower", "CounterOnly", "LinearRegressionTrainer_0");
    const imported = join(modelPath, "imported", "rapl-sysfs", "AbsPower", "CounterOnly", "LinearRegressionTrainer_0");
    await cp(join(ours, "weight.json"), join(imported, "weight.json"), { recursive: true });
    const metadata = JSON.parse(await readFile(join(ours, "metadata.json"), "utf8")) as Record<string, unknown>;
    delete metadata.format_version;
    await writeFile(join(imported, "metadata.json"), JSON.stringify(metadata));
    const evaluate = async (pipeline: string) =>
      (await evaluateJson(["--model", "LinearRegressionTrainer_0", "--source", "rapl-sysfs"], { pipeline })).models[0]!
        .components;
    const fromWeights = await evaluate("imported");
    const fromModels = await evaluate(PIPELINE);
    fromWeights.forEach((c, i) => {
      expect(c.component).toBe(fromModels[i]!.component);
      expect(Math.abs(c.maeWatts - fromModels[i]!.maeWatts)).toBeLessThan(1e-9);
    });
  });
});
