// The VM power kernels (assembly/guest.ts): memory used fraction, energy integration.
import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** 1 - available / total per element (NaN where total is not positive). */
export function usedFraction(available: ArrayLike<number>, total: ArrayLike<number>): Float64Array {
  if (available.length !== total.length) throw new RangeError(`usedFraction: ${available.length} vs ${total.length} values`);
  const a = F64Buffer.from(available);
  const t = F64Buffer.from(total);
  const out = F64Buffer.alloc(available.length);
  return withBuffers([a, t, out], () => {
    assertKernelOk("usedFraction", core().usedFraction(a.ptr, t.ptr, available.length, out.ptr));
    return out.toArray();
  });
}

/** Returns joules + max(watts, 0) * seconds per element (a counter that never falls). */
export function accumulateEnergy(joules: ArrayLike<number>, watts: ArrayLike<number>, seconds: number): Float64Array {
  if (joules.length !== watts.length) throw new RangeError(`accumulateEnergy: ${joules.length} vs ${watts.length} values`);
  const j = F64Buffer.from(joules);
  const w = F64Buffer.from(watts);
  return withBuffers([j, w], () => {
    assertKernelOk("accumulateEnergy", core().accumulateEnergy(j.ptr, w.ptr, joules.length, seconds));
    return j.toArray();
  });
}
