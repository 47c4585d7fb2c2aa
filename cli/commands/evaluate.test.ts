// `kepler-model evaluate` on models trained by `kepler-model train` into a temporary MODEL_PATH, applied to
// the bundled coremark recording. The expected errors are computed here from the model files and the
// reference's own tables (its extract and isolate_min CSVs of the same recording), with plain arithmetic.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readGoldenCsv } from "../../test/support/extractor-fixtures.js";
import { evaluateArgs, evaluateJson, evaluateText } from "../../test/support/evaluate-cli.js";
import { runCliCaptured as run } from "../../test/support/run-cli.js";
import {
  cli,
  columnsOf,
  COREMARK,
  errors,
  IDLE,
  linearPredictions,
  PIPELINE,
  relative,
  type Report,
  modelPath,
  useEvaluatedModels,
} from "../../test/support/evaluated-models.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { startRegistry } from "../../services/registry/main.js";

useEvaluatedModels();

describe("kepler-model evaluate", () => {
  it("--json: each model's MAE, MAPE and max error per component equal the ones computed from the reference's table", async () => {
    const report = await evaluateJson(["--in-sample"]);
    const golden = readGoldenCsv("extract_abs_rapl-sysfs_CounterOnly.csv");
    const column = columnsOf(golden.header, golden.rows);
    const linear = report.models.find((m) => m.energySource === "rapl-sysfs" && m.modelName === "LinearRegressionTrainer_0")!;
    expect(linear.rowCount).toBe(golden.rows.length);
    const modelFolder = join(modelPath, PIPELINE, "rapl-sysfs", "AbsPower", "CounterOnly", "LinearRegressionTrainer_0");
    for (const component of ["package", "dram"]) {
      const expected = errors(column(`${component}_power`), await linearPredictions(modelFolder, component, column));
      const ours = linear.components.find((c) => c.component === component)!;
      expect(relative(ours.maeWatts, expected.mae), component).toBeLessThan(1e-9);
      expect(relative(ours.mapePercent, expected.mape), component).toBeLessThan(1e-9);
      expect(relative(ours.maxErrorWatts, expected.max), component).toBeLessThan(1e-9);
    }
    // core and uncore measure 0 W throughout: no MAPE (-1), as the reference.
    expect(linear.components.find((c) => c.component === "core")).toEqual({
      component: "core",
      maeWatts: 0,
      mapePercent: -1,
      maxErrorWatts: 0,
    });
    // Sorted by the model's MAE (its worst component) within each source.
    const rapl = report.models.filter((m) => m.energySource === "rapl-sysfs").map((m) => m.maeWatts);
    expect(rapl).toHaveLength(3);
    expect([...rapl].sort((a, b) => a - b)).toEqual(rapl);
    expect(report.models.map((m) => m.energySource)).toEqual(["acpi", "rapl-sysfs", "rapl-sysfs", "rapl-sysfs"]);
    expect(report.skipped).toEqual([
      {
        energySource: "acpi",
        outputType: "AbsPower",
        featureGroup: "BPFOnly",
        modelName: "LinearRegressionTrainer_0",
        reason:
          "response: missing metric kepler_container_bpf_cpu_time_ms_total (needed for feature bpf_cpu_time_ms of group BPFOnly)",
      },
    ]);
  });

  it("prints a table sorted by MAE, the best model per source and the skipped models", async () => {
    const stdout = await evaluateText(["--in-sample"]);
    const golden = readGoldenCsv("extract_abs_acpi_CounterOnly.csv");
    const column = columnsOf(golden.header, golden.rows);
    const modelFolder = join(modelPath, PIPELINE, "acpi", "AbsPower", "CounterOnly", "LinearRegressionTrainer_0");
    const expected = errors(column("platform_power"), await linearPredictions(modelFolder, "platform", column));
    const lines = stdout.split("\n");
    expect(lines[0]).toBe(
      "source      output    feature_group  model                          component  rows           mae_w    mape_pct  max_err_w",
    );
    expect(lines[1]!.split(/\s+/)).toEqual([
      "acpi",
      "AbsPower",
      "CounterOnly",
      "LinearRegressionTrainer_0",
      "platform",
      "187",
      "in-sample",
      expected.mae.toFixed(4),
      expected.mape.toFixed(4),
      expected.max.toFixed(4),
    ]);
    const raplModels = lines.filter((line) => line.startsWith("rapl-sysfs ")).map((line) => line.split(/\s+/)[3]);
    expect(raplModels).toHaveLength(12);
    expect(lines).toContain(
      `best acpi AbsPower: CounterOnly/LinearRegressionTrainer_0 (in-sample MAE ${expected.mae.toFixed(4)} W)`,
    );
    expect(lines).toContain("note: in-sample: every row scored, the models' training rows included; these errors are optimistic");
    expect(lines.filter((line) => line.startsWith("best rapl-sysfs AbsPower: CounterOnly/"))).toHaveLength(1);
    expect(lines).toContain(
      "skipped acpi AbsPower BPFOnly/LinearRegressionTrainer_0: response: missing metric kepler_container_bpf_cpu_time_ms_total (needed for feature bpf_cpu_time_ms of group BPFOnly)",
    );
  });

  it("scores held-out rows by default: each model's stored test rows, whose MAE equals the one stored (coremark and idle)", async () => {
    const heldOut = async (input: string, source: string, ...extra: string[]) =>
      (
        await evaluateJson<Report & { models: Array<{ scoredRows: string; storedHeldOutMaeWatts: number | null }> }>(
          ["--source", source, ...extra],
          { input },
        )
      ).models;
    const models = [
      ...(await heldOut(COREMARK, "rapl-sysfs")),
      ...(await heldOut(COREMARK, "acpi")),
      ...(await heldOut(IDLE, "acpi", "--feature-group", "BPFOnly")),
    ];
    // 3 rapl-sysfs and 1 acpi CounterOnly models on coremark, the acpi BPFOnly model on the idle recording.
    expect(models.map((m) => `${m.energySource}/${m.featureGroup}/${m.modelName}`).sort()).toEqual([
      "acpi/BPFOnly/LinearRegressionTrainer_0",
      "acpi/CounterOnly/LinearRegressionTrainer_0",
      "rapl-sysfs/CounterOnly/KNeighborsRegressorTrainer_0",
      "rapl-sysfs/CounterOnly/LinearRegressionTrainer_0",
      "rapl-sysfs/CounterOnly/PolynomialRegressionTrainer_0",
    ]);
    for (const model of models) {
      const where = `${model.energySource}/${model.featureGroup}/${model.modelName}`;
      const folder = join(modelPath, PIPELINE, model.energySource, "AbsPower", model.featureGroup, model.modelName);
      const metadata = JSON.parse(await readFile(join(folder, "metadata.json"), "utf8")) as {
        held_out: { row_count: number; mae: number; components: Record<string, { mae: number; mape: number }> };
      };
      expect(model.scoredRows, where).toBe("held-out");
      // The reference's 10 % split: ceil(0.1 * 187) = 19 coremark rows, ceil(0.1 * 5) = 1 idle row.
      expect(model.rowCount, where).toBe(model.featureGroup === "BPFOnly" ? 1 : 19);
      expect(metadata.held_out.row_count, where).toBe(model.rowCount);
      expect(relative(model.maeWatts, metadata.held_out.mae), where).toBeLessThan(1e-9);
      expect(model.storedHeldOutMaeWatts).toBe(metadata.held_out.mae);
      for (const c of model.components) {
        const stored = metadata.held_out.components[c.component]!;
        if (stored.mae === 0) expect(c.maeWatts, `${where} ${c.component}`).toBe(0);
        else expect(relative(c.maeWatts, stored.mae), `${where} ${c.component}`).toBeLessThan(1e-9);
        expect(c.mapePercent === -1 ? -1 : relative(c.mapePercent, stored.mape), `${where} ${c.component}`).toBeLessThan(1e-9);
      }
    }
  });

  it("--registry-address reads the pipeline from a running registry: the same numbers as the folder", async () => {
    const registry = await startRegistry(
      { host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0, sourcePipelines: [] },
      { logger: silentLogger() },
    );
    try {
      const args = ["evaluate", "--pipeline", PIPELINE, "--input", COREMARK, "--source", "rapl-sysfs", "--json"];
      const local = JSON.parse(await cli([...args, "--model-path", modelPath])) as Report;
      const remote = JSON.parse(await cli([...args, "--registry-address", registry.address])) as Report & { source: string };
      expect(remote.source).toBe(`registry ${registry.address}`);
      expect(remote.models).toEqual(local.models);
      expect(remote.models).toHaveLength(3);
    } finally {
      await registry.close();
    }
  });

  it("--model and --source pick one model", async () => {
    const report = await evaluateJson(["--model", "KNeighborsRegressorTrainer_0", "--source", "rapl-sysfs"]);
    expect(report.models.map((m) => `${m.energySource}/${m.modelName}`)).toEqual(["rapl-sysfs/KNeighborsRegressorTrainer_0"]);
    expect(report.skipped).toEqual([]);
  });

  it("explains mistakes: usage errors exit 2, a missing pipeline or model exits 1", async () => {
    const missing = await run(["evaluate", "--input", COREMARK]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.split("\n")[0]).toBe(
      "kepler-model evaluate: --pipeline is required (kepler-model evaluate --help lists the flags)",
    );
    const type = await run(["evaluate", "--pipeline", PIPELINE, "--input", COREMARK, "--output-type", "Both"]);
    expect(type.code).toBe(2);
    expect(type.stderr.split("\n")[0]).toBe(
      'kepler-model evaluate: --output-type must be one of AbsPower, DynPower, got "Both" (kepler-model evaluate --help lists the flags)',
    );
    const pipeline = await run(evaluateArgs([], { pipeline: "nope" }));
    expect(pipeline.code).toBe(1);
    expect(pipeline.stderr).toBe(`kepler-model evaluate: pipeline folder ${join(modelPath, "nope")} not found\n`);
    const model = await run(evaluateArgs(["--model", "X_0"]));
    expect(model.code).toBe(1);
    expect(model.stderr).toBe(
      `kepler-model evaluate: no AbsPower model named X_0 matches in ${join(modelPath, PIPELINE)} (it holds 6 models)\n`,
    );
  });
});
