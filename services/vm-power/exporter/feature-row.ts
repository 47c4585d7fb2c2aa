// The model's input row at one tick: the guest's features of this tick, `<feature>_lag1` from the previous
// tick's (the lagged transform of training/vm-feature-transforms.ts), and host-context features
// (../host/host-context.ts) when the model takes them and a host-context source is configured.
import { LAG_SUFFIX, laggedFeatures } from "../training/vm-feature-transforms.js";
import { HOST_CONTEXT_FEATURES } from "../host/host-context.js";

/** Values by feature name of one tick. */
export type FeatureValues = ReadonlyMap<string, number>;

/** The row for `names` (see the file comment); throws naming the first feature this VM cannot give now. */
export function featureRow(
  names: readonly string[],
  current: FeatureValues,
  previous: FeatureValues | undefined,
  host?: FeatureValues,
): Float64Array {
  return Float64Array.from(names, (name) => {
    const value = name.endsWith(LAG_SUFFIX)
      ? previous?.get(name.slice(0, -LAG_SUFFIX.length))
      : (current.get(name) ?? host?.get(name));
    if (value === undefined || !Number.isFinite(value)) {
      const why = name.endsWith(LAG_SUFFIX) && previous === undefined ? "no previous tick yet" : "not available in this VM";
      throw new Error(`feature ${name}: ${why}`);
    }
    return value;
  });
}

/** Whether a model's inputs include host-context features. */
export function needsHostContext(names: readonly string[], hostFeatures: readonly string[]): boolean {
  return names.some((name) => hostFeatures.includes(name));
}

/**
 * The features the exporter can feed a model, for the registry's selection (a model is a candidate only
 * when the request lists all its features): the group's, their `_lag1` (vm-train keeps them where they
 * help), and the host-context features when a host-context source is configured.
 */
export function selectableFeatures(groupFeatures: readonly string[], withHostContext: boolean): string[] {
  return [...groupFeatures, ...laggedFeatures(groupFeatures), ...(withHostContext ? HOST_CONTEXT_FEATURES : [])];
}
