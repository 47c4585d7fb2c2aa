// Online training's rows: only ticks with this and the previous tick's complete features and finite host
// watts are kept, the newest maxRows of them, and the table carries the lag columns from the previous tick.
import { describe, expect, it } from "vitest";
import { getColumn } from "../../domain/data-table.js";
import { OnlineTrainingRows } from "./online-training.js";

const FEATURES = ["guest_cpu_user_ratio", "guest_context_switches_per_second"];
const features = (user: number) => new Map([...FEATURES.map((f, i) => [f, user * (i + 1)] as const)]);
const sample = (t: number, previous: number | undefined, watts = [10 + t, 5, 1, 2]) => ({
  timestampSeconds: t,
  features: features(t / 10),
  previousFeatures: previous === undefined ? undefined : features(previous / 10),
  watts: Float64Array.from(watts),
});

describe("OnlineTrainingRows", () => {
  it("keeps complete rows only, the newest maxRows, with the previous tick's features as _lag1", () => {
    const rows = new OnlineTrainingRows(FEATURES, 3);
    rows.add(sample(1, undefined)); // no previous tick: no lag values
    rows.add(sample(2, 1, [Number.NaN, 5, 1, 2])); // the host gave no package watts
    rows.add({ ...sample(3, 2), features: new Map([["guest_cpu_user_ratio", 0.3]]) }); // a feature missing
    expect(rows.count).toBe(0);
    for (const t of [4, 5, 6, 7]) rows.add(sample(t, t - 1));
    expect(rows.count).toBe(3);
    const table = rows.table(2);
    expect([...table.timestamps]).toEqual([5, 6, 7]);
    expect([...getColumn(table, "guest_cpu_user_ratio")]).toEqual([0.5, 0.6, 0.7]);
    expect([...getColumn(table, "guest_cpu_user_ratio_lag1")]).toEqual([0.4, 0.5, 0.6]);
    expect([...getColumn(table, "guest_context_switches_per_second_lag1")]).toEqual([0.8, 1, 1.2]);
    expect([...getColumn(table, "package_power")]).toEqual([15, 16, 17]);
    expect([...getColumn(table, "dram_power")]).toEqual([2, 2, 2]);
    expect([...getColumn(table, "node_type")]).toEqual([2, 2, 2]);
  });
});
