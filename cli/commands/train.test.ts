// `kepler-model train` on the reference's coremark table and golden split.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fixturePath } from "../../test/fixtures/trainer/fixtures.js";
import { runCliCaptured as run } from "../../test/support/run-cli.js";

/** `train` on the reference's acpi CounterOnly table, held out by its golden split, then `flags`. */
const trainGoldenAcpi = (flags: readonly string[]) =>
  run([
    ...["train", "--input", fixturePath("extract_abs_acpi_CounterOnly.csv"), "--source", "acpi"],
    ...["--feature-group", "CounterOnly", "--test-timestamps", fixturePath("split_coremark.json"), ...flags],
  ]);

/** `train` on the raw coremark Prometheus dump (the extractor's fixture) for one source and group, then `flags`. */
const trainOnCoremarkDump = (source: string, featureGroup: string, flags: readonly string[]) =>
  run([
    ...["train", "--input", new URL("../../test/fixtures/extractor/coremark-2023-09-28.json.gz", import.meta.url).pathname],
    ...["--source", source, "--feature-group", featureGroup, ...flags],
  ]);

describe("kepler-model train", () => {
  let modelPath: string;
  beforeEach(async () => {
    modelPath = await mkdtemp(join(tmpdir(), "cli-train-"));
  });
  afterEach(async () => {
    await rm(modelPath, { recursive: true, force: true });
  });

  it("trains on the fixture CSV with the golden split, prints MAE/MAPE per component and writes the archives", async () => {
    const { code, stdout, stderr } = await trainGoldenAcpi([
      ...["--output-type", "AbsPower", "--model-path", modelPath],
      ...["--trainers", "LinearRegressionTrainer,KNeighborsRegressorTrainer,LogisticRegressionTrainer"],
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const group = join(modelPath, "std_v0.7.11", "acpi", "AbsPower", "CounterOnly");
    // Golden test MAE / MAPE (trainers_coremark_acpi.csv): 11.50 / 4.58, 6.61 / 2.81, 7.20 / 3.01.
    expect(stdout).toBe(
      [
        "trainer                     node_type  component  mae_w  mape_pct  status",
        "LinearRegressionTrainer     0          platform   11.50  4.58      ok",
        "KNeighborsRegressorTrainer  0          platform   6.61   2.81      ok",
        "LogisticRegressionTrainer   0          platform   7.20   3.01      ok",
        "",
        "3 of 3 models trained on 187 rows; archives:",
        `  ${join(group, "LinearRegressionTrainer_0.zip")}`,
        `  ${join(group, "KNeighborsRegressorTrainer_0.zip")}`,
        `  ${join(group, "LogisticRegressionTrainer_0.zip")}`,
        "",
      ].join("\n"),
    );
    expect((await readdir(group)).filter((name) => name.endsWith(".zip")).sort()).toEqual([
      "KNeighborsRegressorTrainer_0.zip",
      "LinearRegressionTrainer_0.zip",
      "LogisticRegressionTrainer_0.zip",
    ]);
  });

  it("--json: the same run as data, MAE and MAPE unrounded (golden 11.50 / 4.58), nothing written with --dry-run", async () => {
    const { code, stdout, stderr } = await trainGoldenAcpi([
      ...["--trainers", "LinearRegressionTrainer"],
      ...["--model-path", modelPath, "--dry-run", "--json"],
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      rowCount: number;
      dryRun: boolean;
      published: string[];
      results: Array<{
        trainerName: string;
        outcome: string;
        components: Array<{ component: string; maeWatts: number; mapePercent: number }>;
      }>;
    };
    expect(report).toMatchObject({ rowCount: 187, dryRun: true, published: [] });
    expect(report.results.map((r) => [r.trainerName, r.outcome])).toEqual([["LinearRegressionTrainer", "succeeded"]]);
    const [platform] = report.results[0]!.components;
    expect(platform!.component).toBe("platform");
    expect(platform!.maeWatts).toBeCloseTo(11.5, 1);
    expect(platform!.mapePercent).toBeCloseTo(4.58, 1);
    expect(await readdir(modelPath)).toEqual([]);
  });

  it("extracts a saved Prometheus response (the raw coremark dump) and trains on it: the golden MAE", async () => {
    const { code, stdout, stderr } = await trainOnCoremarkDump("rapl-sysfs", "CounterOnly", [
      ...["--trainers", "PolynomialRegressionTrainer", "--test-timestamps", fixturePath("split_coremark.json"), "--dry-run"],
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    // Golden (trainers_coremark_rapl-sysfs.csv): package 3.2623 / 4.7692, dram 1.4292 / 3.1146.
    expect(stdout.split("\n").slice(1, 5)).toEqual([
      "PolynomialRegressionTrainer  0          package    3.26   4.77      ok",
      "PolynomialRegressionTrainer  0          core       0.00   -1.00     ok",
      "PolynomialRegressionTrainer  0          uncore     0.00   -1.00     ok",
      "PolynomialRegressionTrainer  0          dram       1.43   3.11      ok",
    ]);
    expect(stdout).toContain("1 of 1 models trained on 187 rows (dry run: nothing written)");
  });

  it("trains the groups older recordings carry (CgroupOnly, KubeletOnly) and IRQOnly from the raw coremark dump", async () => {
    for (const group of ["CgroupOnly", "KubeletOnly", "IRQOnly"]) {
      const { code, stdout, stderr } = await trainOnCoremarkDump("acpi", group, [
        ...["--trainers", "LinearRegressionTrainer", "--model-path", modelPath],
      ]);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toMatch(/^LinearRegressionTrainer +0 +platform +\d+\.\d\d +\d+\.\d\d +ok$/m);
      expect(stdout).toContain("1 of 1 models trained on 187 rows; archives:");
      const folder = join(modelPath, "std_v0.7.11", "acpi", "AbsPower", group);
      expect(await readdir(folder)).toContain("LinearRegressionTrainer_0.zip");
    }
  });

  it("reports a usage error for a missing flag in one line", async () => {
    const { code, stderr } = await run(["train", "--source", "acpi", "--feature-group", "BPFOnly"]);
    expect(code).toBe(2);
    expect(stderr).toBe("kepler-model train: --input is required (kepler-model train --help lists the flags)\n");
  });
});
