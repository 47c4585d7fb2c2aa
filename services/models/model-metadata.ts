// metadata.json of one model, with the reference's keys in the reference's order (spec §6.2), plus
// `trained_by_version` (the kepler-model version that trained it) and our `format_version` last. Readers that only know the reference keys (the Python estimator, the
// model server's selection) ignore the extra key.
import { InvalidInputError } from "../domain/errors.js";
import type { OutputTypeName } from "./model-location.js";

/** Version of the archive format written by this code (our JSON component files, weight.json inside the zip). */
export const MODEL_FORMAT_VERSION = 1;

/** The reference's machine_spec attributes (NodeAttribute), as stored in metadata.json. */
export interface MetadataMachineSpec {
  processor: string;
  cores: number;
  chips: number;
  memory: number;
  frequency: number;
}

/** Accuracy of one component on the test rows. */
export interface ComponentAccuracy {
  component: string;
  /** Mean absolute error, watts. */
  maeWatts: number;
  /** Mean absolute percentage error over test rows with positive power, percent; -1 when there is none. */
  mapePercent: number;
}

/** Everything metadata.json states about a model. */
export interface ModelMetadataInput {
  modelName: string;
  modelClass: "scikit" | "curvefit" | "xgboost";
  features: readonly string[];
  /** Trainer-level feature-engineering files (e.g. the polynomial expansion); the scaler is not listed. */
  feFiles: readonly string[];
  outputType: OutputTypeName;
  components: readonly ComponentAccuracy[];
  nodeType?: number;
  machineSpec?: MetadataMachineSpec;
  /** How many rows the model was fitted on and when (EP-003's training data points and last training time). */
  training?: { rowCount: number; timeSeconds: number };
  /** The kepler-model version that trained the model (package.json's), stored as `trained_by_version`. */
  trainedByVersion?: string;
  /**
   * The held-out test rows (timestamps, Unix seconds, in split order) and, per component, the exact errors of
   * the served (clamped) predictions on them and their sorted absolute residuals (split-conformal calibration).
   */
  heldOut?: {
    timestampsSeconds: ArrayLike<number>;
    components: ReadonlyArray<ComponentAccuracy & { absResidualsSorted: ArrayLike<number> }>;
  };
}

/** metadata.json `held_out`: the held-out test rows and the exact (unrounded) errors on them. */
export interface HeldOutRecord {
  rowCount: number;
  timestampsSeconds: number[];
  /** Largest component MAE, watts. */
  maeWatts: number;
  /** Largest component MAPE, percent (-1 when no component has one). */
  mapePercent: number;
  components: ComponentAccuracy[];
}

/** Python's round(x, 2): correctly rounded on the exact binary value, exact ties to even. */
export function roundTo2(value: number): number {
  if (!Number.isFinite(value)) return value;
  // An exact tie (x.xx5 exactly) needs a dyadic fraction (0.125, 0.375, ...): value * 8 is then an integer
  // and value * 100 is exact. Anything else is not a tie, and toFixed rounds the exact binary value.
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  if (Number.isInteger(value * 8) && scaled - floor === 0.5) return (floor % 2 === 0 ? floor : floor + 1) / 100;
  return Number(value.toFixed(2));
}

/**
 * Builds metadata.json content. `mae` and `mape` are the maxima over components of the rounded
 * component values (the reference stores the last component's mape: docs/deviations.md).
 */
export function createModelMetadata(input: ModelMetadataInput): Record<string, unknown> {
  if (input.components.length === 0) throw new InvalidInputError("components", "a model needs at least one component");
  const rounded = input.components.map((c) => ({
    component: c.component,
    mae: roundTo2(c.maeWatts),
    mape: roundTo2(c.mapePercent),
  }));
  const metadata: Record<string, unknown> = {
    model_name: input.modelName,
    model_class: input.modelClass,
    model_file: `${input.modelName}.json`,
    features: [...input.features],
    fe_files: [...input.feFiles],
    output_type: input.outputType,
    mae: Math.max(...rounded.map((c) => c.mae)),
    mape: Math.max(...rounded.map((c) => c.mape)),
  };
  if (input.nodeType !== undefined) metadata.node_type = input.nodeType;
  if (input.machineSpec !== undefined) metadata.machine_spec = { ...input.machineSpec };
  for (const c of rounded) metadata[`${c.component}_mae`] = c.mae;
  for (const c of rounded) metadata[`${c.component}_mape`] = c.mape;
  const heldOut = input.heldOut;
  if (heldOut !== undefined && heldOut.components.length > 0) {
    metadata.held_out = {
      row_count: heldOut.timestampsSeconds.length,
      timestamps: Array.from(heldOut.timestampsSeconds),
      mae: Math.max(...heldOut.components.map((c) => c.maeWatts)),
      mape: Math.max(...heldOut.components.map((c) => c.mapePercent)),
      components: Object.fromEntries(heldOut.components.map((c) => [c.component, { mae: c.maeWatts, mape: c.mapePercent }])),
    };
    metadata.calibration = {
      method: "split_conformal",
      rows: "held_out",
      abs_residuals: Object.fromEntries(heldOut.components.map((c) => [c.component, Array.from(c.absResidualsSorted)])),
    };
  }
  if (input.training !== undefined)
    metadata.training = { row_count: input.training.rowCount, time_seconds: input.training.timeSeconds };
  if (input.trainedByVersion !== undefined) metadata.trained_by_version = input.trainedByVersion;
  metadata.format_version = MODEL_FORMAT_VERSION;
  return metadata;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isFiniteNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** metadata.json `training` (rows fitted on, Unix time), or undefined when the model has none (older archives). */
export function trainingOf(metadata: Record<string, unknown>): { rowCount: number; timeSeconds: number } | undefined {
  const record = metadata.training;
  if (!isRecord(record) || !isFiniteNumber(record.row_count) || !isFiniteNumber(record.time_seconds)) return undefined;
  return { rowCount: record.row_count, timeSeconds: record.time_seconds };
}

/** metadata.json `held_out`, or undefined when the model has none (older archives, kepler-model-db) or it is malformed. */
export function heldOutOf(metadata: Record<string, unknown>): HeldOutRecord | undefined {
  const record = metadata.held_out;
  if (!isRecord(record) || !isFiniteNumber(record.mae) || !isRecord(record.components)) return undefined;
  const timestamps = Array.isArray(record.timestamps) ? record.timestamps.filter(isFiniteNumber) : [];
  const components: ComponentAccuracy[] = [];
  for (const [component, value] of Object.entries(record.components)) {
    if (isRecord(value) && isFiniteNumber(value.mae))
      components.push({ component, maeWatts: value.mae, mapePercent: isFiniteNumber(value.mape) ? value.mape : -1 });
  }
  return {
    rowCount: isFiniteNumber(record.row_count) ? record.row_count : timestamps.length,
    timestampsSeconds: timestamps,
    maeWatts: record.mae,
    mapePercent: isFiniteNumber(record.mape) ? record.mape : -1,
    components,
  };
}

/**
 * metadata.json `calibration`: per component the sorted absolute held-out residuals, or undefined when the
 * model has none. A component whose list is empty or not all finite numbers is left out.
 */
export function calibrationOf(metadata: Record<string, unknown>): Map<string, Float64Array> | undefined {
  const record = metadata.calibration;
  if (!isRecord(record) || !isRecord(record.abs_residuals)) return undefined;
  const residuals = new Map<string, Float64Array>();
  for (const [component, values] of Object.entries(record.abs_residuals)) {
    if (Array.isArray(values) && values.length > 0 && values.every(isFiniteNumber))
      residuals.set(component, Float64Array.from(values));
  }
  return residuals.size > 0 ? residuals : undefined;
}
