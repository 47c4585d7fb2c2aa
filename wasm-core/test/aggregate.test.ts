import { describe, expect, it } from "vitest";
import {
  F64Buffer,
  accumulateOnAxis,
  gatherByIndex,
  gatherContainerRows,
  gatherNodeRows,
  intersectionOfSorted,
  keepPowerRows,
  locateOnAxis,
  meanOrMissing,
  overlayLatestChange,
  pearsonWithTarget,
  readSlice,
  rollingMeanColumns,
  sliceOf,
  sumOverKeys,
  unionOfSorted,
  withBuffers,
} from "../src/index.js";

// Every expected value below is worked out by hand from the inputs in the test.
describe("timestamp axes", () => {
  it("unions and intersects strictly increasing blocks", () => {
    const a = F64Buffer.from([1, 3, 5, 7]);
    const b = F64Buffer.from([2, 3, 8]);
    const c = F64Buffer.from([3, 7, 8]);
    withBuffers([a, b, c], () => {
      const union = unionOfSorted([a, b, c]);
      const both = intersectionOfSorted([a, c]);
      expect(Array.from(union.view())).toEqual([1, 2, 3, 5, 7, 8]);
      expect(Array.from(both.view())).toEqual([3, 7]);
      union.free();
      both.free();
    });
  });

  it("locates timestamps on an axis, -1 when absent, also after going backwards", () => {
    const axis = F64Buffer.from([10, 20, 30, 40]);
    const ts = F64Buffer.from([20, 40, 10, 35, 30]);
    withBuffers([axis, ts], () => {
      const index = locateOnAxis(axis, ts);
      expect(Array.from(index.view())).toEqual([1, 3, 0, -1, 2]);
      index.free();
    });
  });

  it("sums samples per step, NaN adding 0, and counts them; skips steps off the axis", () => {
    const axis = F64Buffer.from([10, 20, 30]);
    const sums = F64Buffer.from([0, 0, 0]);
    const counts = F64Buffer.from([0, 0, 0]);
    const t1 = F64Buffer.from([10, 20, 30]);
    const v1 = F64Buffer.from([1, 2, 3]);
    const t2 = F64Buffer.from([20, 25, 30]);
    const v2 = F64Buffer.from([10, 99, Number.NaN]);
    withBuffers([axis, sums, counts, t1, v1, t2, v2], () => {
      expect(accumulateOnAxis(axis, t1, v1, sums, counts)).toBe(0);
      expect(accumulateOnAxis(axis, t2, v2, sums, counts)).toBe(1);
      expect(Array.from(sums.view())).toEqual([1, 12, 3]);
      expect(Array.from(counts.view())).toEqual([1, 2, 2]);
      const mean = meanOrMissing(sums, counts, -7, true);
      expect(Array.from(mean.view())).toEqual([1, 6, 1]);
      mean.free();
    });
  });

  it("merges series of one key sharing steps: the sample whose series changed most recently wins", () => {
    // Series a moves until 30 then stops; Prometheus' lookback repeats 130 at 40 and 50. Series b
    // starts at 40 (the container restarted under new labels) and is idle at 50.
    const axis = F64Buffer.from([10, 20, 30, 40, 50]);
    const ta = F64Buffer.from([10, 20, 30, 40, 50]);
    const va = F64Buffer.from([110, 120, 130, 130, 130]);
    const tb = F64Buffer.from([40, 50]);
    const vb = F64Buffer.from([5, 5]);
    const out = F64Buffer.from([0, 0, 0, 0, 0]);
    const changedAt = F64Buffer.from([0, 0, 0, 0, 0]);
    const counts = F64Buffer.from([0, 0, 0, 0, 0]);
    withBuffers([axis, ta, va, tb, vb, out, changedAt, counts], () => {
      expect(overlayLatestChange(axis, ta, va, out, changedAt, counts)).toBe(0);
      // b's last change (40) is after a's (30) at both shared steps
      expect(overlayLatestChange(axis, tb, vb, out, changedAt, counts)).toBe(2);
      expect(Array.from(out.view())).toEqual([110, 120, 130, 5, 5]);
      expect(Array.from(changedAt.view())).toEqual([10, 20, 30, 40, 40]);
      expect(Array.from(counts.view())).toEqual([1, 1, 1, 1, 1]);
      // placed in the other order, a's repeats still lose to b
      out.view().fill(0);
      changedAt.view().fill(0);
      counts.view().fill(0);
      expect(overlayLatestChange(axis, tb, vb, out, changedAt, counts)).toBe(0);
      expect(overlayLatestChange(axis, ta, va, out, changedAt, counts)).toBe(2);
      expect(Array.from(out.view())).toEqual([110, 120, 130, 5, 5]);
    });
  });

  it("compensates sums like pandas' groupby sum: 1e16 + 1 + 1 = 1e16 + 2, not 1e16", () => {
    const axis = F64Buffer.from([10]);
    const ts = F64Buffer.from([10, 10, 10]);
    const values = F64Buffer.from([1e16, 1, 1]);
    const plain = F64Buffer.from([0]);
    const kahan = F64Buffer.from([0]);
    const compensation = F64Buffer.from([0]);
    const counts = F64Buffer.from([0]);
    withBuffers([axis, ts, values, plain, kahan, compensation, counts], () => {
      accumulateOnAxis(axis, ts, values, plain, counts);
      accumulateOnAxis(axis, ts, values, kahan, counts, compensation);
      expect(plain.view()[0]).toBe(1e16);
      expect(kahan.view()[0]).toBe(1e16 + 2);
      // the same three rows as three keys of a grid, over 3 steps (a SIMD lane pair and the scalar tail)
      const grid = F64Buffer.from([1e16, 1e16, 1e16, 1, 1, 1, 1, 1, 1]);
      const sums = sumOverKeys(grid, 1, 3, 3);
      expect(Array.from(sums.view())).toEqual([1e16 + 2, 1e16 + 2, 1e16 + 2]);
      sums.free();
      grid.free();
    });
  });

  it("sums a planes x keys x steps grid over keys (odd step count exercises the scalar tail)", () => {
    // plane 0: keys [1,2,3], [10,20,30]; plane 1: keys [0.5,0,0], [0,0,0.25]
    const grid = F64Buffer.from([1, 2, 3, 10, 20, 30, 0.5, 0, 0, 0, 0, 0.25]);
    withBuffers([grid], () => {
      const sums = sumOverKeys(grid, 2, 2, 3);
      expect(Array.from(sums.view())).toEqual([11, 22, 33, 0.5, 0, 0.25]);
      sums.free();
    });
  });

  it("gathers by index with a fill for -1", () => {
    const src = F64Buffer.from([5, 6, 7]);
    const index = F64Buffer.from([2, -1, 0]);
    withBuffers([src, index], () => {
      const out = gatherByIndex(src, index, Number.NaN);
      expect(Array.from(out.view())).toEqual([7, Number.NaN, 5]);
      out.free();
    });
  });

  it("drops power rows that sum to zero or hold a non-finite value, compacting in place", () => {
    const axis = F64Buffer.from([1, 2, 3, 4]);
    // two summed columns and one extra (node type) column, stride 4
    const cols = F64Buffer.from([5, 0, Number.NaN, 1, 0, 0, 1, -1, 9, 9, 9, 9]);
    withBuffers([axis, cols], () => {
      const kept = keepPowerRows(axis, cols, 3, 2);
      expect(kept).toBe(1);
      expect(Array.from(readSlice(sliceOf(axis, 0, 1)))).toEqual([1]);
      expect([cols.view()[0], cols.view()[4], cols.view()[8]]).toEqual([5, 0, 9]);
    });
  });

  it("gathers container rows ordered by step then key, and node rows with per-step sums", () => {
    // 1 plane, 2 keys, 3 steps. key 0 present at steps 0,1; key 1 at steps 1,2.
    const grid = F64Buffer.from([1, 2, 0, 0, 20, 30]);
    const presence = F64Buffer.from([1, 1, 0, 0, 1, 1]);
    // row-level block: one column (power) over 2 rows; step 0 has no row, steps 1,2 map to rows 0,1
    const block = F64Buffer.from([100, 200]);
    const rowIndex = F64Buffer.from([-1, 0, 1]);
    withBuffers([grid, presence, block, rowIndex], () => {
      const rowLevel = { block, nCols: 1, nRows: 2, rowIndex };
      const axis = F64Buffer.from([100, 103, 106]);
      const rows = gatherContainerRows(grid, presence, axis, { planes: 1, keys: 2 }, rowLevel);
      expect(rows.rowCount).toBe(3);
      expect(Array.from(rows.values)).toEqual([2, 20, 30, 100, 100, 200]);
      expect(Array.from(rows.keyIndex)).toEqual([0, 1, 1]);
      expect(Array.from(rows.timestamps)).toEqual([103, 103, 106]);
      // Gathered in chunks of whole steps (one row asked: each chunk grows to its step's 2 and 1 rows).
      const chunked = gatherContainerRows(grid, presence, axis, { planes: 1, keys: 2 }, rowLevel, 1);
      expect(Array.from(chunked.values)).toEqual([2, 20, 30, 100, 100, 200]);
      expect(Array.from(chunked.keyIndex)).toEqual([0, 1, 1]);
      expect(Array.from(chunked.timestamps)).toEqual([103, 103, 106]);
      const sums = sumOverKeys(grid, 1, 2, 3);
      const presenceSums = sumOverKeys(presence, 1, 2, 3);
      const node = gatherNodeRows(sums, 1, axis, presenceSums, rowLevel);
      expect(node.rowCount).toBe(2);
      expect(Array.from(node.values)).toEqual([22, 30, 100, 200]);
      expect(Array.from(node.timestamps)).toEqual([103, 106]);
      sums.free();
      axis.free();
      presenceSums.free();
    });
  });
});

describe("rolling mean and correlation", () => {
  it("averages each full window and leaves NaN before it; untouched columns are copied", () => {
    const out = rollingMeanColumns(Float64Array.from([1, 2, 3, 4, 7, 7, 7, 7]), 4, [0], 3);
    expect(Array.from(out)).toEqual([Number.NaN, Number.NaN, 2, 3, 7, 7, 7, 7]);
  });

  it("gives Pearson r: +1, -1, NaN for a constant column, and a hand-computed value", () => {
    // x4 = [1,2,3,5] with y = [1,2,3,4]: means 2.75 and 2.5, co-deviation sum 6.5, squared-deviation sums 8.75 and 5 -> r = 6.5/sqrt(43.75)
    const columns = Float64Array.from([2, 4, 6, 8, 4, 3, 2, 1, 5, 5, 5, 5, 1, 2, 3, 5]);
    const r = pearsonWithTarget(columns, 4, 4, Float64Array.from([1, 2, 3, 4]));
    expect(r[0]).toBeCloseTo(1, 15);
    expect(r[1]).toBeCloseTo(-1, 15);
    expect(Number.isNaN(r[2])).toBe(true);
    expect(r[3]).toBeCloseTo(6.5 / Math.sqrt(43.75), 14);
  });
});
