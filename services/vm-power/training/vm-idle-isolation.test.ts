// Domain test of DynPower for VMs: each VM's least power per zone over the window is its idle share, taken
// off its own rows (never below 0), features untouched.
import { describe, expect, it } from "vitest";
import { createDataTable, getColumn } from "../../domain/data-table.js";
import { vmSpec } from "../guest/vm-spec.js";
import { isolateVmIdle } from "./vm-idle-isolation.js";

describe("isolateVmIdle", () => {
  it("subtracts each VM's own minimum per zone from its rows", () => {
    const spec = vmSpec(2, 4 * 2 ** 30);
    const table = createDataTable(
      [1, 2, 3, 4, 5],
      [
        ["guest_cpu_user_ratio", [0.1, 0.5, 0.2, 0.9, 0.3]],
        ["package_power", [12, 20, 30, 45, 31]],
        ["core_power", [5, 9, 10, 20, 12]],
        ["uncore_power", [1, 1, 2, 2, 2]],
        ["dram_power", [3, 4, 5, 6, 5]],
        ["node_type", [0, 0, 0, 0, 0]],
      ],
    );
    const vm = (name: string, firstRow: number, rowCount: number) => ({
      name,
      vcpus: 2,
      spec,
      nodeType: 0,
      firstRow,
      rowCount,
      hasPerf: false,
    });
    const { table: dynamic, idle } = isolateVmIdle({ nodeType: 0, spec, table, vms: [vm("a", 0, 2), vm("b", 2, 3)] });
    expect(idle).toEqual(
      new Map([
        ["a", [12, 5, 1, 3]],
        ["b", [30, 10, 2, 5]],
      ]),
    );
    expect([...getColumn(dynamic, "package_power")]).toEqual([0, 8, 0, 15, 1]);
    expect([...getColumn(dynamic, "core_power")]).toEqual([0, 4, 0, 10, 2]);
    expect([...getColumn(dynamic, "dram_power")]).toEqual([0, 1, 0, 1, 0]);
    expect([...getColumn(dynamic, "guest_cpu_user_ratio")]).toEqual([0.1, 0.5, 0.2, 0.9, 0.3]);
  });
});
