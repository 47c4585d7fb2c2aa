// The reference model server's HTTP API (spec §7.2-7.3) as pure functions: a POST /model body into a
// selection query, GET /best-models parameters into a list query, and the response bodies. The
// node:http glue is http-api.ts. Kepler 0.7-0.9 send the ModelRequest of kepler-collector.md §2.3.
import { InvalidInputError } from "../domain/errors.js";
import { FEATURE_GROUP_NAMES } from "../domain/feature-groups.js";
import { isOutputTypeName, type OutputTypeName } from "../models/index.js";
import { isEmptySpec, type NodeSpec, nodeSpecFrom } from "../node-types/index.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";
import type { BestModelEntry, BestModelsQuery, ModelSelection, SelectModelQuery } from "./domain/select-model.js";
import type { StoredModel } from "./domain/stored-model.js";

/** A parsed POST /model request: the selection query and what shapes the answer. */
export interface HttpModelRequest {
  query: SelectModelQuery;
  /** The request's node_type, -1 when absent: the reference adds model_name etc. to weights only for -1. */
  nodeType: number;
  weight: boolean;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalString(body: JsonObject, field: string, fallback: string, path = field): string {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") throw new InvalidInputError(path, `expected a string, got ${JSON.stringify(value)}`);
  return value;
}

function optionalBoolean(body: JsonObject, field: string, fallback: boolean): boolean {
  const value = body[field];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw new InvalidInputError(field, `expected true or false, got ${JSON.stringify(value)}`);
  return value;
}

function optionalNumber(body: JsonObject, field: string, path: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw new InvalidInputError(path, `expected a non-negative number, got ${JSON.stringify(value)}`);
  return value;
}

function outputTypeOf(value: unknown, field: string): OutputTypeName {
  if (isOutputTypeName(value)) return value;
  throw new InvalidInputError(field, `expected "AbsPower" or "DynPower", got ${JSON.stringify(value ?? null)}`);
}

// Kepler >= 0.7.12 sends vendor and threads_per_core too; they are checked but do not take part in
// node-type matching (the reference's index has five attributes).
function machineSpecOf(value: unknown): NodeSpec | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new InvalidInputError("machine_spec", "expected an object");
  optionalString(value, "vendor", "", "machine_spec.vendor");
  optionalNumber(value, "threads_per_core", "machine_spec.threads_per_core");
  return nodeSpecFrom({
    processor: optionalString(value, "processor", "", "machine_spec.processor"),
    cores: optionalNumber(value, "cores", "machine_spec.cores"),
    chips: optionalNumber(value, "chips", "machine_spec.chips"),
    memory: optionalNumber(value, "memory", "machine_spec.memory"),
    frequency: optionalNumber(value, "frequency", "machine_spec.frequency"),
  });
}

/**
 * Parses a POST /model body (the reference's ModelRequest, same defaults). Unknown keys are ignored
 * (the reference answers 500 for them); a wrong type is an InvalidInputError naming the field.
 */
export function parseModelRequest(text: string): HttpModelRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError("body", `not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(body)) throw new InvalidInputError("body", "expected a JSON object (a ModelRequest)");
  const metrics = body.metrics;
  if (!Array.isArray(metrics) || metrics.length === 0)
    throw new InvalidInputError("metrics", "required: a non-empty list of metric names");
  const bad = metrics.findIndex((m) => typeof m !== "string");
  if (bad >= 0) throw new InvalidInputError(`metrics[${bad}]`, `expected a string, got ${JSON.stringify(metrics[bad])}`);
  const rawNodeType = body.node_type;
  if (rawNodeType !== undefined && rawNodeType !== null && !(typeof rawNodeType === "number" && Number.isInteger(rawNodeType)))
    throw new InvalidInputError("node_type", `expected an integer, got ${JSON.stringify(rawNodeType)}`);
  const nodeType = typeof rawNodeType === "number" ? rawNodeType : -1;
  const weight = optionalBoolean(body, "weight", false);
  const query: SelectModelQuery = {
    featureNames: metrics as string[],
    outputType: outputTypeOf(body.output_type, "output_type"),
    energySource: optionalString(body, "source", "rapl-sysfs"),
    nodeType,
    weight,
    trainerName: optionalString(body, "trainer_name", ""),
    filter: optionalString(body, "filter", ""),
    pipelineName: optionalString(body, "pipeline_name", ""),
    machineSpec: machineSpecOf(body.machine_spec),
    looseNodeType: optionalBoolean(body, "loose_node_type", true),
  };
  return { query, nodeType, weight };
}

/**
 * The weight=true answer: the model's weight.json components, plus model_name, machine_spec (when
 * known) and mae when the request's node_type is -1, as the reference does, or when the request carries a
 * machine_spec: only Kepler >= 0.7.12 sends one, and it decodes into a struct that has model_name and
 * machine_spec and ignores other keys. Kepler <= 0.7.11 decodes a plain component map and fails on extra
 * keys; those versions send node_type 1 and no machine_spec (kepler-collector.md §2.3-2.4).
 */
export function weightResponseBody(
  model: StoredModel,
  store: ModelCatalogue,
  requestNodeType: number,
  requestHasMachineSpec = false,
): JsonObject {
  const parsed = JSON.parse(model.weightJson ?? "{}") as JsonObject;
  const { model_name: _name, machine_spec: _spec, mae: _mae, ...components } = parsed;
  if (requestNodeType !== -1 && !requestHasMachineSpec) return components;
  const answer: JsonObject = { ...components, model_name: model.location.modelName };
  const spec = store.machineSpecOf(model);
  if (spec !== undefined) answer.machine_spec = spec;
  if (model.maeWatts !== undefined) answer.mae = model.maeWatts;
  return answer;
}

/** Response headers saying which node type was chosen and why (any client may read them; Kepler ignores them). */
export function selectionHeaders(selection: ModelSelection): Record<string, string> {
  const match = selection.nodeTypeMatch;
  // Header values must be one line of visible ASCII.
  const ascii = (text: string) => text.replace(/[^\x20-\x7e]/g, "?");
  return {
    "X-Kepler-Model-Node-Type": `${match.pipelineName}/${match.nodeType}`,
    "X-Kepler-Model-Node-Type-Match": match.kind,
    "X-Kepler-Model-Selection": ascii(selection.reason),
  };
}

/**
 * GET /best-models parameters, with the reference's names and defaults, plus the machine spec attributes
 * `processor`, `cores`, `chips`, `memory`, `frequency` (ours: they choose the node type as POST /model does).
 */
export function parseBestModelsQuery(params: URLSearchParams): BestModelsQuery {
  const text = (name: string): string | undefined => {
    const value = params.get(name);
    return value === null || value === "" ? undefined : value;
  };
  const outputType = text("output-type");
  const featureGroup = text("feature-group");
  if (featureGroup !== undefined && !(FEATURE_GROUP_NAMES as readonly string[]).includes(featureGroup))
    throw new InvalidInputError(
      "feature-group",
      `unknown feature group "${featureGroup}" (one of ${FEATURE_GROUP_NAMES.join(", ")})`,
    );
  const nodeTypeText = text("node-type");
  const nodeType = nodeTypeText === undefined ? undefined : Number(nodeTypeText);
  if (nodeType !== undefined && !Number.isInteger(nodeType))
    throw new InvalidInputError("node-type", `expected an integer, got "${nodeTypeText}"`);
  const numberParam = (name: string): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < 0)
      throw new InvalidInputError(name, `expected a non-negative number, got "${value}"`);
    return parsed;
  };
  const machineSpec = nodeSpecFrom({
    processor: text("processor"),
    cores: numberParam("cores"),
    chips: numberParam("chips"),
    memory: numberParam("memory"),
    frequency: numberParam("frequency"),
  });
  return {
    energySource: text("energy-source"),
    outputType: outputType === undefined ? undefined : outputTypeOf(outputType, "output-type"),
    featureGroup,
    nodeType,
    filter: text("filter"),
    pipelineName: text("pipeline-name"),
    machineSpec: isEmptySpec(machineSpec) ? undefined : machineSpec,
  };
}

/** The GET /best-models answer: {"AbsPower": {"BPFOnly": "SGDRegressorTrainer_0"}, "DynPower": {...}}. */
export function bestModelsResponseBody(
  entries: readonly BestModelEntry[],
  outputTypes: readonly OutputTypeName[],
): Record<string, Record<string, string>> {
  const body: Record<string, Record<string, string>> = Object.fromEntries(outputTypes.map((type) => [type, {}]));
  for (const entry of entries) (body[entry.outputType] ??= {})[entry.featureGroup] = entry.model.location.modelName;
  return body;
}
