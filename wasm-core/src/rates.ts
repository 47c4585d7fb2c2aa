import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * How a decrease in a counter is read: "prometheus" treats it as a reset to zero (the increase is
 * the new value, as Prometheus rate() does); "repeat-previous" repeats the previous rate, as the
 * reference kepler-model-server's extractor does (mask negative, forward-fill, then 0).
 */
export type CounterResetPolicy = "prometheus" | "repeat-previous";

const resetPolicyCode: Record<CounterResetPolicy, number> = { prometheus: 0, "repeat-previous": 1 };

/** Per-second rates of a counter series, using each row's own time step. Element 0 is NaN. */
export function counterToRate(
  timestampsSeconds: ArrayLike<number>,
  values: ArrayLike<number>,
  resetPolicy: CounterResetPolicy = "prometheus",
): Float64Array {
  if (timestampsSeconds.length !== values.length) {
    throw new RangeError(`counterToRate: ${timestampsSeconds.length} timestamps but ${values.length} values`);
  }
  const n = values.length;
  const t = F64Buffer.from(timestampsSeconds);
  const v = F64Buffer.from(values);
  const out = F64Buffer.alloc(n);
  return withBuffers([t, v, out], () => {
    counterToRateInWasm(t, v, out, resetPolicy);
    return out.toArray();
  });
}

/** The same kernel on buffers already in wasm memory; writes into `out`. */
export function counterToRateInWasm(
  timestamps: F64Buffer,
  values: F64Buffer,
  out: F64Buffer,
  resetPolicy: CounterResetPolicy = "prometheus",
): void {
  const n = values.length;
  if (timestamps.length !== n || out.length < n) throw new RangeError("counterToRateInWasm: buffer lengths differ");
  assertKernelOk("counterToRate", core().counterToRate(timestamps.ptr, values.ptr, n, out.ptr, resetPolicyCode[resetPolicy]));
}
