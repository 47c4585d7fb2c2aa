// `kepler-model evaluate` (the reference CLI's `estimate`, renamed: our `estimate` is one inference): applies
// every model of a pipeline in a local MODEL_PATH or a running registry (or one, --model) to a recording, a
// saved Prometheus response, and prints MAE, MAPE and max error per model and component. It scores held-out
// rows: each model's stored test rows when the recording is the one it was trained on, every row of another
// recording; --in-sample scores every row and says so. The recording is extracted (and isolated, for
// DynPower) in-process with the pipeline's extractor.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { DataTable } from "../../services/domain/data-table.js";
import { assertEnergySource, type EnergySource } from "../../services/domain/energy-sources.js";
import { assertFeatureGroup } from "../../services/domain/feature-groups.js";
import { type PrometheusResponse, parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { evaluatePredictor } from "../../services/estimator/domain/evaluate-predictor.js";
import { rowsToScore } from "../../services/estimator/domain/scored-rows.js";
import { loadModelFolder } from "../../services/estimator/model-folder-predictor.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { isolate } from "../../services/isolator/domain/isolate.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { type ModelFolderEntry, listModelFolders } from "../../services/models/list-model-folders.js";
import { OUTPUT_TYPE_NAMES, type OutputTypeName } from "../../services/models/index.js";
import type { Command } from "../command.js";
import { COMMON_FLAGS, withDefault } from "../common-flags.js";
import { booleanFlag, choiceFlag, listFlag, requiredFlag, textFlag } from "../flag-readers.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { withRegistryPipeline } from "../report/registry-pipeline.js";
import { renderText, scoredRowsNotices } from "../report/evaluation-text.js";
import type { ModelEvaluation, SkippedModel } from "../report/model-evaluation.js";

export type Extractor = "default" | "smooth";
export type Isolator = "none" | "min";

/** The pipeline's metadata.json (extractor and isolator it was trained with), or {} when absent. */
export async function readPipelineMetadata(modelPath: string, pipelineName: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(join(modelPath, pipelineName, "metadata.json"), "utf8")) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
}

/** A saved Prometheus response (`kepler-model query`), gunzipped when the name ends in .gz. */
export async function readRecording(path: string): Promise<PrometheusResponse> {
  const bytes = await readFile(path);
  return parsePrometheusResponse(path.endsWith(".gz") ? gunzipSync(bytes) : bytes, path);
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The table the models of one (source, output type, feature group) are evaluated on. */
export async function evaluationTable(
  response: PrometheusResponse,
  group: { energySource: EnergySource; outputType: OutputTypeName; featureGroup: string },
  options: { extractor: Extractor; isolator: Isolator },
): Promise<DataTable> {
  const featureGroup = assertFeatureGroup(group.featureGroup, "feature_group");
  const level = group.outputType === "AbsPower" ? "node" : "container";
  const extracted = extract(response, { energySource: group.energySource, featureGroup, level, extractor: options.extractor });
  if (group.outputType === "AbsPower") return extracted.table;
  return (await isolate(extracted.table, { isolator: options.isolator, energySource: group.energySource })).table;
}

/**
 * Evaluates every listed model, one extraction per group; models are ranked by MAE within source and
 * output type. `onModel` hears each model before it runs (progress).
 */
async function evaluateModels(
  response: PrometheusResponse,
  models: readonly ModelFolderEntry[],
  options: {
    extractor: Extractor;
    isolator: Isolator;
    /** Score every row, training rows included (labelled in-sample). */
    inSample?: boolean;
    onModel?: (model: ModelFolderEntry, index: number) => void;
  },
): Promise<{ evaluations: ModelEvaluation[]; skipped: SkippedModel[] }> {
  const evaluations: ModelEvaluation[] = [];
  const skipped: SkippedModel[] = [];
  const tables = new Map<string, Promise<DataTable>>();
  for (const [index, model] of models.entries()) {
    options.onModel?.(model, index);
    const where = { energySource: model.energySource, outputType: model.outputType, featureGroup: model.featureGroup };
    try {
      const energySource = assertEnergySource(model.energySource, "energy_source");
      const key = `${energySource}/${model.outputType}/${model.featureGroup}`;
      if (!tables.has(key)) tables.set(key, evaluationTable(response, { ...where, energySource }, options));
      const table = await tables.get(key)!;
      const loaded = await loadModelFolder(model.folderPath, energySource);
      const scored = rowsToScore(table, loaded.metadata, options.inSample === true);
      const components = evaluatePredictor(loaded.predictor, scored.table, loaded.features);
      if (components.length === 0) throw new Error("the recording measures none of the model's components");
      evaluations.push({
        ...where,
        modelName: model.modelName,
        rowCount: scored.table.rowCount,
        scoredRows: scored.kind,
        maeWatts: Math.max(...components.map((c) => c.maeWatts)),
        trainedMaeWatts: loaded.trainedMaeWatts ?? null,
        storedHeldOutMaeWatts: scored.stored?.maeWatts ?? null,
        components,
      });
    } catch (error) {
      skipped.push({ ...where, modelName: model.modelName, reason: message(error) });
    }
  }
  const rank = (e: ModelEvaluation) => `${e.energySource}\u0000${e.outputType}`;
  evaluations.sort((a, b) =>
    rank(a) !== rank(b)
      ? rank(a) < rank(b)
        ? -1
        : 1
      : a.maeWatts - b.maeWatts || (a.modelName < b.modelName ? -1 : a.modelName > b.modelName ? 1 : 0),
  );
  return { evaluations, skipped };
}

export const evaluateCommand: Command = {
  name: "evaluate",
  summary: "Apply every model of a pipeline (or one) to a recording and print MAE, MAPE and max error per model and component.",
  usage:
    "--pipeline <name> --input <response.json[.gz]> [--model <name>] [--output-type AbsPower|DynPower] [--in-sample] [--registry-address <host:port>] [--json] [flags]",
  flags: [
    { name: "pipeline", aliases: ["pipeline-name"], valueName: "name", description: "Pipeline folder in the model path." },
    COMMON_FLAGS.recording,
    {
      name: "model",
      aliases: ["model-name"],
      valueName: "name",
      description: "Only this model, e.g. LinearRegressionTrainer_0.",
    },
    { name: "source", valueName: "a,b", description: "Only these energy sources (default: every source of the pipeline)." },
    { name: "feature-group", valueName: "a,b", description: "Only these feature groups (default: all)." },
    COMMON_FLAGS.outputType,
    withDefault(COMMON_FLAGS.extractor, "the one in the pipeline's metadata.json"),
    {
      name: "isolator",
      valueName: "none|min",
      description: "DynPower: isolator for the recording (default: the pipeline's when none or min, else min).",
    },
    {
      name: "in-sample",
      boolean: true,
      description:
        "Score every row of the recording, the models' training rows included (labelled in-sample; optimistic). Default: held-out rows only.",
    },
    { name: "json", boolean: true, description: "Print the results as JSON instead of a table." },
    ...CLIENT_SECURITY_FLAGS,
    {
      name: peerAddressKey("registry").flag,
      valueName: "host:port",
      description:
        "Read the pipeline from this running registry (whatever storage is behind it, local folder or S3) instead of --model-path.",
    },

    {
      name: "model-path",
      valueName: "dir",
      description: `Model folder to read (env MODEL_PATH, default ${modelPathKey.default}).`,
    },
  ],
  async run({ flags, stdout, env }) {
    const pipelineName = requiredFlag(flags, "pipeline");
    const input = requiredFlag(flags, "input");
    const outputType = choiceFlag(flags, "output-type", OUTPUT_TYPE_NAMES, "AbsPower");
    const fromRegistry = flags[peerAddressKey("registry").flag] !== undefined;
    if (!fromRegistry) return evaluateIn(readConfig({ modelPath: modelPathKey }, env, flags).modelPath, input);
    const address = readConfig({ address: peerAddressKey("registry") }, env, flags).address;
    return withRegistryPipeline(address, commandConnection({ env, flags }), pipelineName, (modelPath) =>
      evaluateIn(modelPath, input, `registry ${address}`),
    );

    async function evaluateIn(modelPath: string, input: string, where = join(modelPath, pipelineName)): Promise<number> {
      const metadata = await readPipelineMetadata(modelPath, pipelineName);
      const extractor = choiceFlag(
        flags,
        "extractor",
        ["default", "smooth"] as const,
        metadata.extractor === "smooth" ? "smooth" : "default",
      );
      const isolator = choiceFlag(flags, "isolator", ["none", "min"] as const, metadata.isolator === "none" ? "none" : "min");
      const sources = listFlag(flags, "source").map((name) => assertEnergySource(name, "--source"));
      const groups = listFlag(flags, "feature-group");
      const modelName = textFlag(flags, "model") ?? "";
      const all = await listModelFolders(modelPath, pipelineName);
      const models = all.filter(
        (m) =>
          m.outputType === outputType &&
          (sources.length === 0 || (sources as string[]).includes(m.energySource)) &&
          (groups.length === 0 || groups.includes(m.featureGroup)) &&
          (modelName === "" || m.modelName === modelName),
      );
      if (models.length === 0)
        throw new Error(
          `no ${outputType} model${modelName === "" ? "" : ` named ${modelName}`} matches in ${where} (it holds ${all.length} models)`,
        );
      const response = await readRecording(input);
      const inSample = booleanFlag(flags, "in-sample");
      const { evaluations, skipped } = await evaluateModels(response, models, { extractor, isolator, inSample });
      const trainedIsolator = typeof metadata.isolator === "string" ? metadata.isolator : "";
      // The profile and trainer isolators need an idle recording or a registry; evaluate isolates in-process.
      const notices: string[] =
        outputType === "DynPower" && flags.isolator === undefined && trainedIsolator !== "" && trainedIsolator !== isolator
          ? [`the pipeline was trained with the ${trainedIsolator} isolator; the recording is isolated with ${isolator}`]
          : [];
      notices.push(...scoredRowsNotices(evaluations));
      if (booleanFlag(flags, "json")) {
        const report = {
          pipelineName,
          input,
          ...(fromRegistry ? { source: where } : {}),
          outputType,
          extractor,
          ...(outputType === "DynPower" ? { isolator } : {}),
          models: evaluations,
          skipped,
          notices,
        };
        stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } else {
        stdout.write(renderText(evaluations, skipped) + notices.map((notice) => `note: ${notice}\n`).join(""));
      }
      return evaluations.length > 0 ? 0 : 1;
    }
  },
};
