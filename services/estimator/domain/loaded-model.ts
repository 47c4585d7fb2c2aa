// A model the estimator has loaded, with what the response reports about it.
import type { IntervalCalibration } from "./prediction-intervals.js";
import type { Predictor } from "./predictor.js";
import type { OutputTypeName } from "../../models/index.js";
import type { MachineSpec } from "../../node-types/index.js";

/** What the estimator asks its model source for (the registry's SelectModel, typed). */
export interface ModelQuery {
  featureNames: readonly string[];
  unavailableFeatureNames: readonly string[];
  outputType: OutputTypeName;
  /** Canonical energy source. */
  energySource: string;
  trainerName: string;
  filter: string;
  pipelineName: string;
  /** The machine to match node types against. */
  machineSpec: MachineSpec;
}

/** A loaded model; `provenance` is whatever the source reports about the choice (passed through). */
export interface LoadedModel<P> {
  modelName: string;
  maeWatts: number;
  featureGroup: string;
  /** Logical cores of the machine the model was trained on; 0 when unknown. */
  modelCores: number;
  /** Features the model reads (metadata.json `features`). */
  features: readonly string[];
  predictor: Predictor;
  /** Why the source chose this model (the registry's selection reason), for the log. */
  selectionReason?: string;
  /** Held-out residuals for prediction intervals; undefined when the model stores none. */
  calibration?: IntervalCalibration;
  provenance: P;
}

/** Where models come from (the registry, through its gRPC client). */
export interface ModelSource<P> {
  load(query: ModelQuery): Promise<LoadedModel<P>>;
}

/** The cache key of a query: one model per (output type, source, trainer, filter, pipeline, features, machine). */
export function queryKey(query: ModelQuery): string {
  const spec = query.machineSpec;
  // Computed on every estimate: flat, and lists copied for sorting only when they are out of order.
  return JSON.stringify([
    query.outputType,
    query.energySource,
    query.trainerName,
    query.filter,
    query.pipelineName,
    sortedNames(query.featureNames),
    sortedNames(query.unavailableFeatureNames),
    spec.processor,
    spec.cores,
    spec.chips,
    spec.memoryGib,
    spec.frequencyMhz,
  ]);
}

/**
 * Whether two queries have the same key, told without building it: field by field, lists in the same
 * order (a reordered list is reported different, and its key is then built, as it may still be equal).
 */
export function sameQuery(a: ModelQuery, b: ModelQuery): boolean {
  const x = a.machineSpec;
  const y = b.machineSpec;
  return (
    a.outputType === b.outputType &&
    a.energySource === b.energySource &&
    a.trainerName === b.trainerName &&
    a.filter === b.filter &&
    a.pipelineName === b.pipelineName &&
    sameNames(a.featureNames, b.featureNames) &&
    sameNames(a.unavailableFeatureNames, b.unavailableFeatureNames) &&
    x.processor === y.processor &&
    x.cores === y.cores &&
    x.chips === y.chips &&
    x.memoryGib === y.memoryGib &&
    x.frequencyMhz === y.frequencyMhz
  );
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sortedNames(names: readonly string[]): readonly string[] {
  for (let i = 1; i < names.length; i++) if (names[i - 1]! > names[i]!) return [...names].sort();
  return names;
}
