import { describe, expect, it } from "vitest";
import { createDataTable } from "../../domain/data-table.js";
import { alignedWindow } from "./online-pipelines.js";
import { newestSampleRowSeconds } from "./steps/newest-sample.js";

describe("alignedWindow", () => {
  it("ends on the last step-grid point at or before now and reaches back whole steps", () => {
    expect(alignedWindow(1000.5, 300, 3)).toEqual({ startTimeSeconds: 699, endTimeSeconds: 999 });
    expect(alignedWindow(1001.9, 300, 3)).toEqual({ startTimeSeconds: 699, endTimeSeconds: 999 });
    expect(alignedWindow(1002, 300, 3)).toEqual({ startTimeSeconds: 702, endTimeSeconds: 1002 });
    // A lookback that is not a whole number of steps is rounded up: 10 s at 3 s -> 12 s.
    expect(alignedWindow(1000, 10, 3)).toEqual({ startTimeSeconds: 987, endTimeSeconds: 999 });
  });
});

describe("newestSampleRowSeconds", () => {
  it("ignores trailing rows that repeat the row before (a stopped exporter's filled grid points)", () => {
    const table = createDataTable(
      [100, 103, 106, 109, 112],
      [
        ["package_power", [10, 12, 0, 0, 0]],
        ["cpu_cycles", [5, 7, 0, 0, 0]],
        ["node_type", [1, 1, 1, 1, 1]],
      ],
    );
    expect(newestSampleRowSeconds(table)).toBe(106);
  });

  it("is the last row when it changed, the only row of a one-row table, undefined without rows", () => {
    const changed = createDataTable([100, 103], [["package_power", [10, 11]]]);
    expect(newestSampleRowSeconds(changed)).toBe(103);
    expect(newestSampleRowSeconds(createDataTable([100], [["package_power", [10]]]))).toBe(100);
    expect(newestSampleRowSeconds(createDataTable([], [["package_power", []]]))).toBeUndefined();
  });
});
