// A trainer checkpoint, `<group>/checkpoint/<Trainer>_<component>_<node_type>.json`: the fitted
// component model plus the scale it was fitted on, so a continued fit (SGD's warm start) sees the
// features exactly as the checkpointed coefficients expect them. The reference pickles the estimator
// (`.pkl`) and keeps the scaler separately in the model folder.
import { InvalidInputError } from "../domain/errors.js";
import { type ComponentModelFile, parseComponentModelFile } from "./component-model-file.js";

/** The checkpoint file's content. */
export interface Checkpoint {
  format_version: 1;
  trainer: string;
  component: string;
  node_type: number;
  features: string[];
  /** MaxAbs scale per feature the model was fitted with. */
  scale: number[];
  model: ComponentModelFile;
}

/** The checkpoint of one fitted component. */
export function createCheckpoint(
  trainer: string,
  component: string,
  nodeType: number,
  features: readonly string[],
  scale: ArrayLike<number>,
  model: ComponentModelFile,
): Checkpoint {
  return { format_version: 1, trainer, component, node_type: nodeType, features: [...features], scale: Array.from(scale), model };
}

/** A checkpoint serialised already (checkpointText): which one it is, and its JSON text. */
export interface SerializedCheckpoint {
  trainer: string;
  component: string;
  node_type: number;
  text: string;
}

/**
 * JSON.stringify(checkpoint), given its model's JSON text made already (the archive's component file):
 * the model, by far its largest part, is not serialised twice. `model` is the last key (createCheckpoint).
 */
export function checkpointText(checkpoint: Checkpoint, modelJson: string): string {
  const { model: _model, ...rest } = checkpoint;
  return `${JSON.stringify(rest).slice(0, -1)},"model":${modelJson}}`;
}

/** Parses and checks a checkpoint object read from `path`. */
export function parseCheckpoint(value: unknown, path: string): Checkpoint {
  if (typeof value !== "object" || value === null) throw new InvalidInputError(path, "expected a checkpoint object");
  const v = value as Record<string, unknown>;
  if (v.format_version !== 1)
    throw new InvalidInputError(`${path}.format_version`, `unsupported version ${String(v.format_version)}`);
  if (typeof v.trainer !== "string" || typeof v.component !== "string" || typeof v.node_type !== "number") {
    throw new InvalidInputError(path, "trainer, component and node_type are required");
  }
  const features = v.features;
  const scale = v.scale;
  if (!Array.isArray(features) || !features.every((f) => typeof f === "string"))
    throw new InvalidInputError(`${path}.features`, "expected names");
  if (!Array.isArray(scale) || scale.length !== features.length || !scale.every((s) => typeof s === "number" && s > 0)) {
    throw new InvalidInputError(`${path}.scale`, `expected ${features.length} positive scales`);
  }
  return {
    format_version: 1,
    trainer: v.trainer,
    component: v.component,
    node_type: v.node_type,
    features: features as string[],
    scale: scale as number[],
    model: parseComponentModelFile(v.model, `${path}.model`),
  };
}
