// VM sizes never trained: a model is trained per vCPU count (node type), and a VM of another size gets the
// linear interpolation, in the vCPU count, of the watts of the two trained sizes around it (a 6-vCPU VM:
// halfway between the 4- and the 8-vCPU models' watts, each model run on the VM's own features). Beyond
// the trained sizes the two nearest are extrapolated linearly, and the caller logs a warning (the result
// is untested there). The weighted sum of the two predictions runs in wasm-core.
import { createMatrix, predictLinear } from "../../../wasm-core/src/index.js";

/** Which trained sizes a VM's watts come from, and how. */
export interface SizeBlend {
  lower: number;
  upper: number;
  /** watts = (1 - upperWeight) x lower's + upperWeight x upper's (outside [0, 1] when extrapolating). */
  upperWeight: number;
  /** The VM's size is outside the trained sizes (or only one size is trained and it is not that one). */
  extrapolating: boolean;
}

/** The blend for `vcpus` given the trained sizes (see the file comment). */
export function sizeBlend(trainedSizes: readonly number[], vcpus: number): SizeBlend {
  const sizes = [...new Set(trainedSizes)].sort((a, b) => a - b);
  if (sizes.length === 0) throw new RangeError("no trained VM size");
  if (sizes.includes(vcpus)) return { lower: vcpus, upper: vcpus, upperWeight: 0, extrapolating: false };
  if (sizes.length === 1) return { lower: sizes[0]!, upper: sizes[0]!, upperWeight: 0, extrapolating: true };
  const above = sizes.findIndex((size) => size > vcpus);
  // Between two trained sizes, or the two nearest ones at either end.
  const upperIndex = above <= 0 ? (above === 0 ? 1 : sizes.length - 1) : above;
  const lower = sizes[upperIndex - 1]!;
  const upper = sizes[upperIndex]!;
  return { lower, upper, upperWeight: (vcpus - lower) / (upper - lower), extrapolating: above <= 0 };
}

/** (1 - w) x lower + w x upper, per element (watts per row, or per zone). */
export function blendWatts(lower: Float64Array, upper: Float64Array, upperWeight: number): Float64Array {
  if (lower.length !== upper.length) throw new RangeError(`blend of ${lower.length} and ${upper.length} values`);
  if (upperWeight === 0) return Float64Array.from(lower);
  const values = new Float64Array(lower.length * 2);
  values.set(lower, 0);
  values.set(upper, lower.length);
  return predictLinear(
    { coefficients: Float64Array.of(1 - upperWeight, upperWeight), intercept: 0 },
    createMatrix(lower.length, 2, values),
  );
}
