// metadata.json of one model, with the reference's keys in the reference's order (spec §6.2), plus
// our `format_version` last. Readers that only know the reference keys (the Python estimator, the
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
  metadata.format_version = MODEL_FORMAT_VERSION;
  return metadata;
}
