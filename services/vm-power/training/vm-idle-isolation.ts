// DynPower for VMs: each VM's power minus its share at rest, the least power it drew per zone in the
// training window (the min isolator's idle power, per VM instead of per node). Offsets are subtracted by
// wasm-core's subtractGroupOffsets (negative results clamped to 0).
import { createDataTable, findColumn, getColumn } from "../../domain/data-table.js";
import { componentsOf, powerColumn } from "../../domain/energy-sources.js";
import { columnStats, subtractGroupOffsets } from "../../../wasm-core/src/index.js";
import type { NodeTypeTable } from "./vm-training-table.js";

/** Each VM's idle watts per zone (in the rapl-sysfs component order). */
export type VmIdleWatts = Map<string, number[]>;

/** The node type's table with dynamic instead of absolute power, and the idle power taken off each VM. */
export function isolateVmIdle(group: NodeTypeTable): { table: NodeTypeTable["table"]; idle: VmIdleWatts } {
  const zones = componentsOf("rapl-sysfs");
  const { table, vms } = group;
  const rows = table.rowCount;
  const power = new Float64Array(rows * zones.length);
  zones.forEach((zone, j) => power.set(getColumn(table, powerColumn(zone)), j * rows));
  const idle: VmIdleWatts = new Map();
  const offsets = new Float64Array(vms.length * zones.length);
  const vmOfRow = new Float64Array(rows);
  vms.forEach((vm, v) => {
    vmOfRow.fill(v, vm.firstRow, vm.firstRow + vm.rowCount);
    const block = new Float64Array(vm.rowCount * zones.length);
    zones.forEach((_, j) =>
      block.set(power.subarray(j * rows + vm.firstRow, j * rows + vm.firstRow + vm.rowCount), j * vm.rowCount),
    );
    const minima = columnStats({ rows: vm.rowCount, cols: zones.length, values: block }).map((s) => s.min);
    idle.set(vm.name, minima);
    offsets.set(minima, v * zones.length);
  });
  const dynamic = subtractGroupOffsets({ values: power, rows, cols: zones.length }, vmOfRow, offsets, {
    clampAtZero: true,
  }).values;
  const columns = table.columnNames.map((name) => {
    const zone = zones.findIndex((z) => powerColumn(z) === name);
    const values = zone >= 0 ? dynamic.subarray(zone * rows, (zone + 1) * rows) : getColumn(table, name);
    return [name, values] as const;
  });
  if (findColumn(table, "node_type") < 0) throw new Error("VM table without node_type");
  return { table: createDataTable(table.timestamps, columns), idle };
}
