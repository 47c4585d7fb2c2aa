// The models evaluate's tests score: trained by `kepler-model train` (and isolated by `isolate`) from the
// bundled recordings into a folder, plus the plain arithmetic the expected errors are computed with.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { extractorFixturePath } from "./extractor-fixtures.js";
import { runCliCaptured as run } from "./run-cli.js";

export const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");
export const IDLE = extractorFixturePath("idle-2023-12-13.json.gz");
export const PIPELINE = "std_v0.7.11";

export interface Report {
  models: Array<{
    energySource: string;
    outputType: string;
    featureGroup: string;
    modelName: string;
    rowCount: number;
    maeWatts: number;
    components: Array<{ component: string; maeWatts: number; mapePercent: number; maxErrorWatts: number }>;
  }>;
  skipped: Array<{ featureGroup: string; modelName: string; reason: string }>;
}

/** Runs the CLI in-process; it must succeed without a word on stderr. */
export async function cli(argv: string[]): Promise<string> {
  const result = await run(argv);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return result.stdout;
}

/**
 * Trains into <folder>/models: rapl-sysfs CounterOnly (three trainers), acpi CounterOnly, acpi BPFOnly on
 * the idle recording (coremark has no BPF metrics, so evaluate skips it), and a DynPower model on the min
 * isolator's table. Returns the model path.
 */
async function trainEvaluatedModels(folder: string): Promise<string> {
  const modelPath = join(folder, "models");
  const train = (input: string, source: string, group: string, trainers: string, extra: string[] = []) =>
    cli([
      "train",
      "--input",
      input,
      "--source",
      source,
      "--feature-group",
      group,
      "--trainers",
      trainers,
      "--model-path",
      modelPath,
      ...extra,
    ]);
  await train(
    COREMARK,
    "rapl-sysfs",
    "CounterOnly",
    "LinearRegressionTrainer,KNeighborsRegressorTrainer,PolynomialRegressionTrainer",
  );
  await train(COREMARK, "acpi", "CounterOnly", "LinearRegressionTrainer");
  // A BPFOnly model (trained on the idle recording): coremark has no BPF metrics, so it is skipped.
  await train(IDLE, "acpi", "BPFOnly", "LinearRegressionTrainer");
  // DynPower: the min isolator's table of the recording, then a model on it.
  const isolated = join(folder, "isolated.csv");
  await cli(["isolate", "--input", COREMARK, "--source", "rapl-sysfs", "--feature-group", "CounterOnly", "--out", isolated]);
  await train(isolated, "rapl-sysfs", "CounterOnly", "LinearRegressionTrainer", ["--output-type", "DynPower"]);
  return modelPath;
}

/** Predictions of a saved linear model on table rows: (x / scale) . coefficients + intercept, clamped at 0. */
export async function linearPredictions(
  modelFolder: string,
  component: string,
  column: (name: string) => number[],
): Promise<number[]> {
  const scaler = JSON.parse(await readFile(join(modelFolder, "scaler.json"), "utf8")) as { features: string[]; scale: number[] };
  const model = JSON.parse(await readFile(join(modelFolder, `${component}.json`), "utf8")) as {
    kind: string;
    coefficients: number[];
    intercept: number;
  };
  expect(model.kind).toBe("linear");
  const features = scaler.features.map(column);
  return features[0]!.map((_, row) =>
    Math.max(
      0,
      scaler.features.reduce(
        (sum, _name, j) => sum + (features[j]![row]! / scaler.scale[j]!) * model.coefficients[j]!,
        model.intercept,
      ),
    ),
  );
}

export function errors(measured: number[], predicted: number[]) {
  const absolute = measured.map((y, i) => Math.abs(y - predicted[i]!));
  const positive = measured.map((y, i) => [y, absolute[i]!] as const).filter(([y]) => y > 0);
  return {
    mae: absolute.reduce((a, b) => a + b, 0) / absolute.length,
    mape: positive.length === 0 ? -1 : (positive.reduce((sum, [y, e]) => sum + e / y, 0) / positive.length) * 100,
    max: Math.max(...absolute),
  };
}

export function columnsOf(header: readonly string[], rows: ReadonlyArray<readonly string[]>) {
  return (name: string) => {
    const index = header.indexOf(name);
    expect(index, name).toBeGreaterThanOrEqual(0);
    return rows.map((row) => Number(row[index]));
  };
}

export const relative = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-300);

/** The test file's trained models: set by useEvaluatedModels' beforeAll. */
export let folder: string;
export let modelPath: string;

/** Trains the models into a temporary folder before the file's tests and removes it after. */
export function useEvaluatedModels(): void {
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "cli-evaluate-"));
    modelPath = await trainEvaluatedModels(folder);
  }, 120_000);
  afterAll(async () => {
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  });
}
