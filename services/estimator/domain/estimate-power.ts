// The Estimate use case: validate the rows, get the model for the query from the cache, predict in
// wasm-core, report watts per component per row with the core ratio (reference estimator, spec §8) and,
// for models with calibration residuals, a prediction interval per row (prediction-intervals.ts).
import { normalizeRequestedSource } from "../../domain/energy-sources.js";
import { componentsOf } from "../../domain/energy-sources.js";
import { FailedPreconditionError, InvalidInputError } from "../../domain/errors.js";
import { listText } from "../../domain/list-text.js";
import { F64Buffer, firstNonFinite, gatherFeatureColumns } from "../../../wasm-core/src/index.js";
import type { MachineSpec } from "../../node-types/index.js";
import type { LoadedModel, ModelQuery } from "./loaded-model.js";
import { assertIntervalLevel, DEFAULT_INTERVAL_LEVEL, intervalBounds } from "./prediction-intervals.js";
import type { ModelCache } from "./model-cache.js";
import type { OutputTypeName } from "../../models/index.js";

/** One Estimate request, decoded. */
export interface EstimateInput {
  featureNames: readonly string[];
  rowCount: number;
  /** Row-major values: packed little-endian float64 bytes, or a plain list. */
  values: { kind: "bytes"; bytes: Uint8Array } | { kind: "list"; list: readonly number[] };
  outputType: OutputTypeName;
  energySource: string;
  systemFeatureNames: readonly string[];
  systemFeatureValues: readonly string[];
  trainerName: string;
  filter: string;
  pipelineName: string;
  unavailableFeatureNames: readonly string[];
  /** The caller's machine; undefined means the estimator's own. */
  machineSpec?: MachineSpec;
  /** Nominal coverage of the prediction intervals (0 < level < 1); undefined means the estimator's default. */
  intervalLevel?: number;
}

/** Watts of one component for every row. */
export interface ComponentPowerResult {
  component: string;
  powerWatts: Float64Array;
  /** Prediction interval per row, when the model stores calibration residuals for the component. */
  lowerWatts?: Float64Array;
  upperWatts?: Float64Array;
  /** The interval's half width before clamping at 0 (0 without calibration). */
  halfWidthWatts?: number;
}

/** The estimate and the model that produced it. */
export interface EstimateResult<P> {
  componentPowers: ComponentPowerResult[];
  rowCount: number;
  model: LoadedModel<P>;
  /** Discovered (or given) cores / the model's cores when both are known, else 1. */
  coreRatio: number;
  /**
   * Nominal coverage of the intervals given: the requested level, or n / (n + 1) when the model has only n
   * residuals, too few for it; 0 or undefined when the model has no calibration.
   */
  intervalLevel?: number;
}

/**
 * Where each model column sits among the request's features (-1 when absent): an indexOf per column for
 * the usual few dozen features, a map beyond (linear in the request's features, whatever the model).
 */
function columnIndices(columns: readonly string[], names: readonly string[]): number[] {
  if (names.length <= 64) return columns.map((feature) => names.indexOf(feature));
  const position = new Map(names.map((name, i) => [name, i]));
  return columns.map((feature) => position.get(feature) ?? -1);
}

function assertDistinct(names: readonly string[]): void {
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === "") throw new InvalidInputError(`feature_names[${i}]`, "empty name");
    if (seen.has(name)) throw new InvalidInputError(`feature_names[${i}]`, `"${name}" is listed twice`);
    seen.add(name);
  });
}

const NO_SYSTEM_FEATURES: ReadonlyMap<string, string> = new Map();

function assertInput(input: EstimateInput): void {
  if (!Number.isInteger(input.rowCount) || input.rowCount < 0)
    throw new InvalidInputError("row_count", `must be a non-negative integer`);
  // Checked on every estimate: a pairwise scan allocates nothing and beats a Set for a few dozen names.
  const names = input.featureNames;
  if (names.length > 64) assertDistinct(names);
  else
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name === "") throw new InvalidInputError(`feature_names[${i}]`, "empty name");
      for (let j = 0; j < i; j++)
        if (names[j] === name) throw new InvalidInputError(`feature_names[${i}]`, `"${name}" is listed twice`);
    }
  if (input.featureNames.length === 0) throw new InvalidInputError("feature_names", "list the features of the value columns");
  const expected = input.rowCount * input.featureNames.length;
  const given = input.values.kind === "bytes" ? input.values.bytes.byteLength / 8 : input.values.list.length;
  const field = input.values.kind === "bytes" ? "values" : "value_list";
  if (given !== expected) {
    throw new InvalidInputError(
      field,
      `expected row_count * len(feature_names) = ${input.rowCount} * ${input.featureNames.length} = ${expected} values, got ${given}`,
    );
  }
  if (input.intervalLevel !== undefined) assertIntervalLevel(input.intervalLevel);
  if (input.systemFeatureNames.length !== input.systemFeatureValues.length) {
    throw new InvalidInputError(
      "system_feature_values",
      `expected ${input.systemFeatureNames.length} values (one per system_feature_names), got ${input.systemFeatureValues.length}`,
    );
  }
}

function isKnown(machine: MachineSpec | undefined): machine is MachineSpec {
  return (
    machine !== undefined &&
    (machine.processor !== "" || machine.cores > 0 || machine.chips > 0 || machine.memoryGib > 0 || machine.frequencyMhz > 0)
  );
}

/** Estimates power with cached models; `ownMachine` stands in when a request gives no machine spec. */
export class Estimator<P> {
  constructor(
    private readonly cache: ModelCache<P>,
    private readonly ownMachine: MachineSpec,
    private readonly defaultIntervalLevel = DEFAULT_INTERVAL_LEVEL,
  ) {}

  /** The query a request maps to (also the cache key's content). */
  queryOf(input: EstimateInput): ModelQuery {
    return {
      featureNames:
        input.systemFeatureNames.length === 0 ? input.featureNames : [...input.featureNames, ...input.systemFeatureNames],
      unavailableFeatureNames: input.unavailableFeatureNames,
      outputType: input.outputType,
      energySource: normalizeRequestedSource(input.energySource),
      trainerName: input.trainerName,
      filter: input.filter,
      pipelineName: input.pipelineName,
      machineSpec: isKnown(input.machineSpec) ? input.machineSpec : this.ownMachine,
    };
  }

  /** Watts per component per row, never negative. */
  async estimate(input: EstimateInput): Promise<EstimateResult<P>> {
    assertInput(input);
    const query = this.queryOf(input);
    return this.predict(input, query, this.cache.cached(query) ?? (await this.cache.get(query)));
  }

  /**
   * The estimate right away when its model is loaded already, else undefined (then `estimate` waits
   * for the model): lets a server answer a stream item in the same turn it arrived.
   */
  estimateNow(input: EstimateInput): EstimateResult<P> | undefined {
    assertInput(input);
    const query = this.queryOf(input);
    const model = this.cache.cached(query);
    return model === undefined ? undefined : this.predict(input, query, model);
  }

  // Synchronous: the model cannot change under the call.
  private predict(input: EstimateInput, query: ModelQuery, model: LoadedModel<P>): EstimateResult<P> {
    const rows = input.values.kind === "bytes" ? F64Buffer.fromBytes(input.values.bytes) : F64Buffer.from(input.values.list);
    try {
      const bad = firstNonFinite(rows);
      if (bad >= 0) {
        const row = Math.floor(bad / input.featureNames.length);
        const col = bad % input.featureNames.length;
        throw new InvalidInputError(
          `values[${row}][${col}]`,
          `${input.featureNames[col]} is ${rows.view()[bad]}; values must be finite`,
        );
      }
      const columns = model.predictor.inputFeatures(input.featureNames);
      const indices = columnIndices(columns, input.featureNames);
      if (indices.includes(-1)) {
        const missing = columns.filter((_, i) => indices[i] === -1);
        throw new FailedPreconditionError(
          `model ${model.modelName} needs ${listText(columns)}; feature_names lacks ${listText(missing)}`,
        );
      }
      const x = gatherFeatureColumns(rows, input.rowCount, input.featureNames.length, indices);
      let powers: Map<string, Float64Array>;
      try {
        powers = model.predictor.predict(
          x,
          columns,
          input.systemFeatureNames.length === 0
            ? NO_SYSTEM_FEATURES
            : new Map(input.systemFeatureNames.map((name, i) => [name, input.systemFeatureValues[i] as string])),
        );
      } finally {
        x.buffer.free();
      }
      const order = componentsOf(query.energySource as Parameters<typeof componentsOf>[0]);
      const level = input.intervalLevel ?? this.defaultIntervalLevel;
      const widths = model.calibration?.halfWidthsAt(level);
      const componentPowers: ComponentPowerResult[] = [];
      for (const component of order) {
        const powerWatts = powers.get(component);
        if (powerWatts === undefined) continue;
        const halfWidthWatts = widths?.get(component);
        componentPowers.push(
          halfWidthWatts === undefined
            ? { component, powerWatts }
            : { component, powerWatts, ...intervalBounds(powerWatts, halfWidthWatts), halfWidthWatts },
        );
      }
      const cores = query.machineSpec.cores;
      const coreRatio = cores > 0 && model.modelCores > 0 ? cores / model.modelCores : 1;
      // The level the intervals have: the one asked for, or less when the model has too few residuals for it.
      const intervalLevel = widths !== undefined && widths.size > 0 ? model.calibration!.achievableLevel(level) : 0;
      return { componentPowers, rowCount: input.rowCount, model, coreRatio, intervalLevel };
    } finally {
      rows.free();
    }
  }

  /** A model of (source, output type, pipeline) was published, imported or removed: what it may change reloads on next use. */
  async onModelEvent(event: { energySource: string; outputType: OutputTypeName; pipelineName: string }): Promise<void> {
    this.cache.refresh(
      (query) =>
        query.energySource === event.energySource &&
        query.outputType === event.outputType &&
        (query.pipelineName === "" || query.pipelineName === event.pipelineName),
    );
  }

  /** Whether the cache holds any model (or one being loaded), so estimates need not reach the registry. */
  holdsModel(): boolean {
    return this.cache.size > 0;
  }

  /** Reloads every cached model on its next use (after reconnecting to the registry, events may have been missed). */
  async reloadAll(): Promise<void> {
    this.cache.refresh();
  }
}
