import { describe, expect, it } from "vitest";
import { F64Buffer, counterToRate, counterToRateInWasm } from "../src/index.js";

// Expected values below are computed by hand from the series, one interval at a time.
describe("counterToRate", () => {
  it("divides each increase by its own time step", () => {
    // steps 3, 3, 6 s; increases 30, 60, 60
    const rates = counterToRate([100, 103, 106, 112], [0, 30, 90, 150]);
    expect(Number.isNaN(rates[0])).toBe(true);
    expect(Array.from(rates.subarray(1))).toEqual([10, 20, 10]);
  });

  it("handles an irregular step (15, 15, 21, 15, 18, 3 s as in idle.json)", () => {
    const t = [0, 15, 30, 51, 66, 84, 87];
    const v = [0, 150, 300, 510, 660, 840, 840];
    expect(Array.from(counterToRate(t, v).subarray(1))).toEqual([10, 10, 10, 10, 10, 0]);
  });

  it("treats a decrease as a reset to zero, as Prometheus rate() does", () => {
    // 40 -> 10: the counter restarted, so the increase over the 2 s step is 10 -> 5/s
    const rates = counterToRate([0, 2, 4, 6], [20, 40, 10, 30]);
    expect(Array.from(rates.subarray(1))).toEqual([10, 5, 10]);
  });

  it("repeats the previous rate on a decrease under the reference's policy", () => {
    const rates = counterToRate([0, 2, 4, 6], [20, 40, 10, 30], "repeat-previous");
    expect(Array.from(rates.subarray(1))).toEqual([10, 10, 10]);
  });

  it("gives 0 for a decrease with no previous rate under the reference's policy", () => {
    const rates = counterToRate([0, 1, 2], [5, 3, 4], "repeat-previous");
    expect(Array.from(rates.subarray(1))).toEqual([0, 1]);
  });

  it("gives NaN for a zero or negative time step", () => {
    const rates = counterToRate([0, 1, 1, 0.5], [0, 1, 2, 3]);
    expect(rates[1]).toBe(1);
    expect(Number.isNaN(rates[2])).toBe(true);
    expect(Number.isNaN(rates[3])).toBe(true);
  });

  it("accepts empty and single-sample series", () => {
    expect(counterToRate([], []).length).toBe(0);
    const one = counterToRate([5], [7]);
    expect(one.length).toBe(1);
    expect(Number.isNaN(one[0])).toBe(true);
  });

  it("rejects series of different lengths", () => {
    expect(() => counterToRate([0, 1], [0])).toThrow("counterToRate: 2 timestamps but 1 values");
  });

  it("works on buffers already in wasm memory, written from unaligned bytes", () => {
    const packed = new Uint8Array(8 * 3 + 3);
    const floats = new Float64Array([0, 2, 5]);
    packed.set(new Uint8Array(floats.buffer), 3);
    const t = F64Buffer.fromBytes(packed.subarray(3));
    const v = F64Buffer.from([1, 5, 11]);
    const out = F64Buffer.alloc(3);
    counterToRateInWasm(t, v, out);
    expect(Array.from(out.view().subarray(1))).toEqual([2, 2]);
    for (const b of [t, v, out]) b.free();
  });
});
