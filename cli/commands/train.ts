// `kepler-model train`: fit trainers on a training table (CSV in the reference's extract format), write
// the model archives to a local model folder and print per-trainer, per-component MAE/MAPE.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import type { DataTable } from "../../services/domain/data-table.js";
import { assertEnergySource } from "../../services/domain/energy-sources.js";
import { assertFeatureGroup } from "../../services/domain/feature-groups.js";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { publishModelArchive, readCheckpoint, writeCheckpoint } from "../../services/models/index.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { type TrainerResult, trainModels } from "../../services/trainer/domain/train-models.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { type Command, UsageError } from "../command.js";
import { formatTextTable } from "../text-table.js";

const DEFAULT_PIPELINE = "std_v0.7.11";

function required(flags: Readonly<Record<string, string | boolean | undefined>>, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

/**
 * Test timestamps from a JSON file: an array of Unix seconds, `{"test_timestamps": [...]}`, or the
 * golden split format `{"<source>": {"test_timestamps": [...]}}`.
 */
async function readTestTimestamps(path: string, source: string): Promise<number[]> {
  const parsed: unknown = JSON.parse(await readFile(path, "utf8"));
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
async function readTrainingTable(
  input: string,
  options: { source: string; featureGroup: string; outputType: string; nodeType?: number; useVmMetrics: boolean },
): Promise<DataTable> {
  if (!/\.json(\.gz)?$/.test(input)) return readTableCsv(await readFile(input, "utf8"), input);
  if (options.outputType !== "AbsPower") {
    throw new UsageError("a Prometheus response gives the node-level AbsPower table; for DynPower pass the isolator's CSV");
  }
  const bytes = await readFile(input);
  const response = parsePrometheusResponse(input.endsWith(".gz") ? gunzipSync(bytes) : bytes, input);
  return extract(response, {
    energySource: assertEnergySource(options.source, "--source"),
    featureGroup: assertFeatureGroup(options.featureGroup, "--feature-group"),
    level: "node",
    extractor: "default",
    nodeType: options.nodeType,
    useVmMetrics: options.useVmMetrics,
  }).table;
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
    { name: "source", valueName: "src", description: "Energy source, e.g. rapl-sysfs or acpi." },
    { name: "feature-group", valueName: "fg", description: "Feature group, e.g. BPFOnly or CounterOnly." },
    { name: "output-type", valueName: "type", description: "AbsPower (node-level table, default) or DynPower (isolated table)." },
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
    { name: "node-type", valueName: "N", description: "Node type for every row, replacing the table's node_type column." },
    {
      name: "vm",
      boolean: true,
      description: "With a saved response as --input: read VM metrics (kepler_process_*, kepler_vm_*, job=vm).",
    },
    { name: "continue", boolean: true, description: "Continue from the pipeline's checkpoints (SGD warm start)." },
    { name: "dry-run", boolean: true, description: "Train and print the table without writing anything." },
  ],
  async run({ flags, stdout, env }) {
    const input = required(flags, "input");
    const source = required(flags, "source");
    const featureGroup = required(flags, "feature-group");
    const outputType = (flags["output-type"] ?? "AbsPower") as string;
    if (outputType !== "AbsPower" && outputType !== "DynPower")
      throw new UsageError(`--output-type must be AbsPower or DynPower, got "${outputType}"`);
    if (flags.seed !== undefined && flags["test-timestamps"] !== undefined)
      throw new UsageError("give --seed or --test-timestamps, not both");
    const seed = flags.seed === undefined ? 0 : Number(flags.seed);
    if (!Number.isInteger(seed) || seed < 0)
      throw new UsageError(`--seed must be a non-negative integer, got "${String(flags.seed)}"`);
    const nodeType = flags["node-type"] === undefined ? undefined : Number(flags["node-type"]);
    if (nodeType !== undefined && !Number.isInteger(nodeType))
      throw new UsageError(`--node-type must be an integer, got "${String(flags["node-type"])}"`);
    const trainerNames =
      typeof flags.trainers === "string"
        ? flags.trainers
            .split(",")
            .map((name) => name.trim())
            .filter((name) => name !== "")
        : listTrainers().map((t) => t.name);
    const { modelPath } = readConfig({ modelPath: modelPathKey }, env, flags);
    const testTimestamps =
      typeof flags["test-timestamps"] === "string" ? await readTestTimestamps(flags["test-timestamps"], source) : undefined;
    const table = await readTrainingTable(input, { source, featureGroup, outputType, nodeType, useVmMetrics: flags.vm === true });
    const dryRun = flags["dry-run"] === true;
    const published: string[] = [];

    const result = await trainModels(
      {
        table,
        energySource: source,
        featureGroup,
        outputType,
        trainerNames,
        nodeType,
        seed,
        testTimestampsSeconds: testTimestamps,
        pipelineName: typeof flags.pipeline === "string" ? flags.pipeline : DEFAULT_PIPELINE,
        continueFromCheckpoint: flags.continue === true,
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
    stdout.write(renderTable(result.results.flatMap(resultRows)));
    const succeeded = result.results.filter((r) => r.outcome === "succeeded").length;
    stdout.write(`\n${succeeded} of ${result.results.length} models trained on ${result.rowCount} rows`);
    stdout.write(dryRun ? " (dry run: nothing written)\n" : `; archives:\n${published.map((p) => `  ${p}`).join("\n")}\n`);
    return succeeded > 0 ? 0 : 1;
  },
};
