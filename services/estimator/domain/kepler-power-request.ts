// Kepler's sidecar PowerRequest (kepler-collector §1.2, kepler-model-server §8.2), decoded into an Estimate
// input. Accepts what Kepler 0.5.5-0.9 sends (source, trainer_name) and v0.4/v0.5's shape: `model_name`,
// no `source`, output types AbsPower/DynPower for total (platform) power, answered as a plain list, and
// AbsComponentPower/DynComponentPower for the component map.
// Unknown keys are ignored: the reference builds PowerRequest(**d) and fails on any extra key, which
// we fix on purpose (docs/deviations.md).
import { normalizeRequestedSource } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import type { EstimateInput } from "./estimate-power.js";
import { isOutputTypeName, type OutputTypeName } from "../../models/index.js";

type JsonObject = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  return typeof value === "object" ? "an object" : String(value);
}

function optionalString(request: JsonObject, key: string): string | undefined {
  const value = request[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new InvalidInputError(key, `expected a string, got ${describe(value)}`);
  return value;
}

function stringList(request: JsonObject, key: string, required: boolean): string[] {
  const value = request[key];
  if (value === undefined || value === null) {
    if (required) throw new InvalidInputError(key, "required: a list of strings");
    return [];
  }
  if (!Array.isArray(value)) throw new InvalidInputError(key, `expected a list of strings, got ${describe(value)}`);
  // Kepler sends system values as strings; numbers are taken as their text.
  return value.map((item, i) => {
    if (typeof item === "string") return item;
    if (typeof item === "number") return String(item);
    throw new InvalidInputError(`${key}[${i}]`, `expected a string, got ${describe(item)}`);
  });
}

function valueRows(request: JsonObject, width: number): number[][] {
  const value = request.values;
  if (!Array.isArray(value)) throw new InvalidInputError("values", `required: a list of rows, got ${describe(value)}`);
  return value.map((row: unknown, r) => {
    if (!Array.isArray(row)) throw new InvalidInputError(`values[${r}]`, `expected a list of numbers, got ${describe(row)}`);
    if (row.length !== width)
      throw new InvalidInputError(`values[${r}]`, `expected ${width} values (one per metrics entry), got ${row.length}`);
    const bad = row.findIndex((cell) => typeof cell !== "number");
    if (bad >= 0) throw new InvalidInputError(`values[${r}][${bad}]`, `expected a number, got ${describe(row[bad])}`);
    return row as number[];
  });
}

const LEGACY_COMPONENT_OUTPUT_TYPES: Record<string, OutputTypeName> = {
  AbsComponentPower: "AbsPower",
  DynComponentPower: "DynPower",
};

function outputTypeOf(request: JsonObject): { outputType: OutputTypeName; legacyComponents: boolean } {
  const value = request.output_type;
  if (isOutputTypeName(value)) return { outputType: value, legacyComponents: false };
  const legacy = typeof value === "string" ? LEGACY_COMPONENT_OUTPUT_TYPES[value] : undefined;
  if (legacy !== undefined) return { outputType: legacy, legacyComponents: true };
  // The reference's message for this case.
  throw new InvalidInputError("output_type", `output type ${describe(value)} is not supported (AbsPower or DynPower)`);
}

/** Kepler v0.5 sent `model_name` (a trainer name, possibly with the `_<node type>` suffix) instead of `trainer_name`. */
function trainerNameOf(request: JsonObject): string {
  const trainerName = optionalString(request, "trainer_name");
  if (trainerName !== undefined) return trainerName;
  return (optionalString(request, "model_name") ?? "").replace(/_\d+$/, "");
}

/** The number of rows the request text declares, when it is a JSON object with a `values` list; else 0. */
export function declaredRowCount(request: unknown): number {
  const values = (request as JsonObject | null)?.values;
  return Array.isArray(values) ? values.length : 0;
}

/** A decoded PowerRequest: the estimate to make and how the client reads `powers`. */
export interface KeplerPowerRequest {
  input: EstimateInput;
  /** Kepler v0.4/v0.5's total-power call (no `source`): it decodes `powers` as a list of platform watts. */
  powersAsList: boolean;
}

/**
 * Decodes a parsed PowerRequest. It predicts with the estimator's own machine (Kepler sends no machine
 * spec) and with no pipeline name, as gRPC Estimate does when those are left empty.
 */
export function decodeKeplerPowerRequest(request: unknown): KeplerPowerRequest {
  if (typeof request !== "object" || request === null || Array.isArray(request))
    throw new InvalidInputError("request", `expected a JSON object (Kepler's PowerRequest), got ${describe(request)}`);
  const fields = request as JsonObject;
  const metrics = stringList(fields, "metrics", true);
  const rows = valueRows(fields, metrics.length);
  const systemFeatures = stringList(fields, "system_features", false);
  const systemValues = stringList(fields, "system_values", false);
  if (systemFeatures.length !== systemValues.length) {
    throw new InvalidInputError(
      "system_values",
      `expected ${systemFeatures.length} values (one per system_features entry), got ${systemValues.length}`,
    );
  }
  const { outputType, legacyComponents } = outputTypeOf(fields);
  // Kepler 0.5.5+ always writes `source` (possibly ""); only v0.4/v0.5 leave it out.
  const source = optionalString(fields, "source");
  const powersAsList = source === undefined && !legacyComponents;
  return {
    input: {
      featureNames: metrics,
      rowCount: rows.length,
      values: { kind: "list", list: rows.flat() },
      outputType,
      energySource: powersAsList ? "acpi" : normalizeRequestedSource(source, "source"),
      systemFeatureNames: systemFeatures,
      systemFeatureValues: systemValues,
      trainerName: trainerNameOf(fields),
      filter: optionalString(fields, "filter") ?? "",
      pipelineName: "",
      unavailableFeatureNames: [],
    },
    powersAsList,
  };
}
