// `kepler-model models list|best`: the registry's models as a table or JSON rows. Flags are read before the
// call; an empty answer to a filter names what the registry does hold (its pipelines or node types) and
// exits non-zero, so a mistyped name is not mistaken for "no models yet".
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { outputTypeFromProto, outputTypeToProto } from "../../services/kit/transport/output-type-codec.js";
import { OUTPUT_TYPE_NAMES, type OutputTypeName } from "../../services/models/index.js";
import type { createRegistryClient } from "../../services/registry/client.js";
import { booleanFlag, choiceFlag, type Flags, integerFlag, textFlag } from "../flag-readers.js";
import { formatTextTable } from "../text-table.js";
import { writeJson } from "../write-text-file.js";

type Registry = ReturnType<typeof createRegistryClient>["client"];

const outputTypeFilter = (name: "" | OutputTypeName) =>
  name === "" ? OutputType.OUTPUT_TYPE_UNSPECIFIED : outputTypeToProto(name);
const outputName = (value: OutputType) => outputTypeFromProto(value) ?? "AbsPower";

/** The filters of `models list` and `best`, read (and checked) before any call. */
export function readModelFilters(flags: Flags) {
  return {
    pipelineName: textFlag(flags, "pipeline") ?? "",
    energySource: textFlag(flags, "source") ?? "",
    outputType: outputTypeFilter(choiceFlag<"" | OutputTypeName>(flags, "output-type", OUTPUT_TYPE_NAMES, "")),
    featureGroup: textFlag(flags, "feature-group") ?? "",
    trainerName: textFlag(flags, "trainer") ?? "",
    nodeType: integerFlag(flags, "node-type", { min: -1 }),
    filter: textFlag(flags, "filter") ?? "",
    json: booleanFlag(flags, "json"),
  };
}

type Filters = ReturnType<typeof readModelFilters>;
type Row = Record<string, string | number | boolean>;

/** Writes `rows` as a table (or JSON with --json); with none, throws the line saying why. */
async function printRows(registry: Registry, filters: Filters, rows: Row[], stdout: NodeJS.WritableStream): Promise<number> {
  if (rows.length === 0) throw new Error(await whyEmpty(registry, filters));
  if (filters.json) writeJson(stdout, rows);
  else {
    const header = Object.keys(rows[0]!);
    stdout.write(
      formatTextTable(
        header,
        rows.map((row) => header.map((key) => String(row[key]))),
      ),
    );
  }
  return 0;
}

async function whyEmpty(registry: Registry, filters: Filters): Promise<string> {
  const { pipelines } = await registry.listPipelineMetadata({ pipelineNames: [] });
  const names = pipelines.map((p) => p.pipelineName);
  const none = "the registry holds none: train one with `kepler-model pipeline run` or `kepler-model models import`";
  if (filters.pipelineName !== "" && !names.includes(filters.pipelineName))
    return `no models in pipeline ${filters.pipelineName}: ${names.length === 0 ? none : `pipelines here are ${names.join(", ")}`}`;
  if (names.length === 0) return `no models: ${none}`;
  if (filters.nodeType !== undefined && filters.nodeType !== -1) {
    const { nodeTypes } = await registry.listNodeTypes({ pipelineName: filters.pipelineName });
    const known = [...new Set(nodeTypes.map((n) => n.nodeType))].sort((a, b) => a - b);
    if (!known.includes(filters.nodeType))
      return `no models of node type ${filters.nodeType}: node types here are ${known.length === 0 ? "none (no node_type_index.json)" : known.join(", ")}`;
  }
  return "no models match these filters (kepler-model models list with fewer flags shows what there is)";
}

/** `models list`: every model the filters match, all pages. */
export async function listModels(registry: Registry, filters: Filters, stdout: NodeJS.WritableStream): Promise<number> {
  const rows: Row[] = [];
  let pageToken = "";
  do {
    const page = await registry.listModels({ ...filters, pageSize: 500, pageToken });
    for (const m of page.models)
      rows.push({
        pipeline: m.location?.pipelineName ?? "",
        source: m.location?.energySource ?? "",
        output: outputName(m.outputType),
        feature_group: m.location?.featureGroup ?? "",
        model: m.modelName,
        mae_w: m.maeWatts,
        weights: m.hasWeights ? "yes" : "no",
      });
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
  return printRows(registry, filters, rows, stdout);
}

/** `models best`: the lowest-error model per output type and feature group. */
export async function listBestModels(registry: Registry, filters: Filters, stdout: NodeJS.WritableStream): Promise<number> {
  const response = await registry.listBestModels(filters);
  const rows = response.bestModels.map((b) => ({
    output: outputName(b.outputType),
    feature_group: b.featureGroup,
    model: b.modelName,
    mae_w: b.maeWatts,
    pipeline: b.location?.pipelineName ?? "",
  }));
  return printRows(registry, filters, rows, stdout);
}
