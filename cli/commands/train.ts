// `kepler-model train`: fit trainers on a training table (CSV in the reference's extract format), write
// the model archives to a local model folder and print per-trainer, per-component MAE/MAPE.
import { readFile } from "node:fs/promises";
import type { DataTable } from "../../services/domain/data-table.js";
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { OUTPUT_TYPE_NAMES, publishModelArchive, readCheckpoint, writeCheckpoint } from "../../services/models/index.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { type TrainerResult, trainModels } from "../../services/trainer/domain/train-models.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { type Command, UsageError } from "../command.js";
import { COMMON_FLAGS, type ExtractSelection, extractSelection } from "../common-flags.js";
import {
  assertInputFile,
  booleanFlag,
  choiceFlag,
  inputFileFlag,
  integerFlag,
  knownItemsFlag,
  textFlag,
} from "../flag-readers.js";
import { formatTextTable } from "../text-table.js";
import { writeJson } from "../write-text-file.js";

const DEFAULT_PIPELINE = "std_v0.7.11";

/**
 * Test timestamps from a JSON file: an array of Unix seconds, `{"test_timestamps": [...]}`, or the
 * golden split format `{"<source>": {"test_timestamps": [...]}}`.
 */
async function readTestTimestamps(path: string, source: string): Promise<number[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new UsageError(`--test-timestamps ${path}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const pick = (value: unknown): unknown =>
    Array.isArray(value)
      ? value
      : typeof value === "object" && value !== null
        ? (value as Record<string, unknown>).test_timestamps
        : undefined;
  const list =
    pick(parsed) ??
    (typeof parsed === "object" && parsed !== null ? pick((parsed as Record<string, unknown>)[source]) : undefined);
  if (!Array.isArray(list) || !list.every((t) => typeof t === "number")) {
    throw new UsageError(
      `--test-timestamps ${path}: expected an array of Unix seconds, {"test_timestamps": [...]} or {"${source}": {"test_timestamps": [...]}}`,
    );
  }
  return list as number[];
}

/**
 * The training table: a CSV as is, or a saved Prometheus response (`.json`, `.json.gz`) run through the
 * extractor's default node-level extraction (the AbsPower table). A DynPower table needs the isolator:
 * pass its CSV.
 */
const isResponse = (path: string) => /\.json(\.gz)?$/.test(path);

async function readTrainingTable(input: string, selection: ExtractSelection): Promise<DataTable> {
  if (!isResponse(input)) return readTableCsv(await readFile(input, "utf8"), input);
  const response = await readPrometheusResponseFile(input, input);
  return extract(response, { ...selection, level: "node", extractor: "default" }).table;
}

function formatNumber(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : "-";
}

function resultRows(result: TrainerResult): string[][] {
  if (result.outcome === "failed") {
    return [[result.trainerName, String(result.nodeType), "-", "-", "-", `failed: ${result.failureReason ?? ""}`]];
  }
  return result.components.map((c) => [
    result.trainerName,
    String(result.nodeType),
    c.component,
    formatNumber(c.maeWatts),
    formatNumber(c.mapePercent),
    "ok",
  ]);
}

function renderTable(rows: string[][]): string {
  const header = ["trainer", "node_type", "component", "mae_w", "mape_pct", "status"];
  return formatTextTable(header, rows);
}

export const trainCommand: Command = {
  name: "train",
  summary: "Train power models on a table (extract CSV or saved Prometheus response) and write them to a local model folder.",
  usage:
    "--input <table.csv|response.json> --source <src> --feature-group <fg> --output-type AbsPower|DynPower --trainers <a,b,...> [--seed N | --test-timestamps <file.json>] --model-path <dir>",
  flags: [
    {
      name: "input",
      valueName: "table.csv",
      description: "Training table: CSV with a timestamp column, the features, <component>_power columns, node_type.",
    },
    COMMON_FLAGS.energySource,
    COMMON_FLAGS.featureGroup,
    COMMON_FLAGS.outputType,
    {
      name: "trainers",
      valueName: "a,b",
      description: `Comma-separated trainer names (default: all implemented: ${listTrainers()
        .map((t) => t.name)
        .join(", ")}).`,
    },
    { name: "seed", valueName: "N", description: "Seed of the 90/10 split and of SGD (default 0)." },
    {
      name: "test-timestamps",
      valueName: "file.json",
      description: "Use these rows (Unix seconds) as the test split instead of a seeded draw.",
    },
    {
      name: "model-path",
      valueName: "dir",
      description: `Model folder to write into (env MODEL_PATH, default ${modelPathKey.default}).`,
    },
    { name: "pipeline", valueName: "name", description: `Pipeline folder name (default ${DEFAULT_PIPELINE}).` },
    COMMON_FLAGS.nodeType,
    COMMON_FLAGS.vm,
    { name: "continue", boolean: true, description: "Continue from the pipeline's checkpoints (SGD warm start)." },
    { name: "dry-run", boolean: true, description: "Train and print the table without writing anything." },
    { name: "json", boolean: true, description: "Print the per-trainer results as JSON instead of a table." },
  ],
  async run({ flags, stdout, env }) {
    const selection = extractSelection(flags);
    const { energySource, featureGroup, nodeType } = selection;
    const outputType = choiceFlag(flags, "output-type", OUTPUT_TYPE_NAMES, "AbsPower");
    if (flags.seed !== undefined && flags["test-timestamps"] !== undefined)
      throw new UsageError("give --seed or --test-timestamps, not both");
    const seed = integerFlag(flags, "seed", { min: 0 }) ?? 0;
    const known = listTrainers().map((t) => t.name);
    const trainerNames = flags.trainers === undefined ? known : knownItemsFlag(flags, "trainers", known, "trainer");
    if (trainerNames.length === 0) throw new UsageError("--trainers names no trainer");
    const { modelPath } = readConfig({ modelPath: modelPathKey }, env, flags);
    const input = await inputFileFlag(flags, "input");
    if (isResponse(input) && outputType !== "AbsPower")
      throw new UsageError("a Prometheus response gives the node-level AbsPower table; for DynPower pass the isolator's CSV");
    const testTimestampsPath = textFlag(flags, "test-timestamps");
    const testTimestamps =
      testTimestampsPath === undefined
        ? undefined
        : await readTestTimestamps(await assertInputFile(testTimestampsPath, "test-timestamps"), energySource);
    const table = await readTrainingTable(input, selection);
    const dryRun = booleanFlag(flags, "dry-run");
    const published: string[] = [];

    const result = await trainModels(
      {
        table,
        energySource,
        featureGroup,
        outputType,
        trainerNames,
        nodeType,
        seed,
        testTimestampsSeconds: testTimestamps,
        pipelineName: textFlag(flags, "pipeline") ?? DEFAULT_PIPELINE,
        continueFromCheckpoint: booleanFlag(flags, "continue"),
        skipPublish: dryRun,
      },
      {
        publishModel: async (archive) => {
          const written = await publishModelArchive(modelPath, archive);
          published.push(written.zipPath);
        },
        readCheckpoint: (group, trainer, component, type) => readCheckpoint(modelPath, group, trainer, component, type),
        writeCheckpoint: async (group, checkpoint) => {
          await writeCheckpoint(modelPath, group, checkpoint);
        },
      },
    );
    const succeeded = result.results.filter((r) => r.outcome === "succeeded").length;
    if (booleanFlag(flags, "json")) {
      writeJson(stdout, {
        rowCount: result.rowCount,
        dryRun,
        published,
        results: result.results.map((r) => ({
          trainerName: r.trainerName,
          modelName: r.modelName,
          nodeType: r.nodeType,
          outcome: r.outcome,
          failureReason: r.failureReason,
          maeWatts: r.maeWatts,
          mapePercent: r.mapePercent,
          trainRowCount: r.trainRowCount,
          testRowCount: r.testRowCount,
          components: r.components.map(({ component, maeWatts, mapePercent }) => ({ component, maeWatts, mapePercent })),
        })),
      });
      return succeeded > 0 ? 0 : 1;
    }
    stdout.write(renderTable(result.results.flatMap(resultRows)));
    stdout.write(`\n${succeeded} of ${result.results.length} models trained on ${result.rowCount} rows`);
    stdout.write(dryRun ? " (dry run: nothing written)\n" : `; archives:\n${published.map((p) => `  ${p}`).join("\n")}\n`);
    return succeeded > 0 ? 0 : 1;
  },
};
