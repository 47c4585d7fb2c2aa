// Opt-in extra columns for a node type's VM table (vm-training-table.ts), trained by passing the longer
// feature list (the trainer's featureNames) under the same GuestOSOnly / GuestOSPerf group:
// - host context (../host/host-context.ts): the host's usage ratio and active watts, per row by timestamp;
// - temporal: `<feature>_lag1`, the previous step's value of each guest feature (power lags counters on
//   ramps, and Kepler's sampling runs on its own clock), for which each VM's first row is dropped.
// Whether either is kept is the caller's measured choice (keepIfBetter in vm-accuracy.ts).
import { createDataTable, getColumn } from "../../domain/data-table.js";
import { takeRows } from "../../../wasm-core/src/index.js";
import {
  guestBusyVcpus,
  type HostContextSeries,
  hostAtTimestamps,
  hostContextColumns,
  HOST_CONTEXT_FEATURES,
  HOST_ZONES,
} from "../host/host-context.js";
import type { NodeTypeTable } from "./vm-training-table.js";

export const LAG_SUFFIX = "_lag1";

/** The lagged feature names for a feature list. */
export function laggedFeatures(features: readonly string[]): string[] {
  return features.filter((f) => f.startsWith("guest_")).map((f) => `${f}${LAG_SUFFIX}`);
}

function withColumns(group: NodeTypeTable, extra: ReadonlyMap<string, Float64Array>): NodeTypeTable {
  const { table } = group;
  const columns = [...table.columnNames.map((name) => [name, getColumn(table, name)] as const), ...extra];
  return { ...group, table: createDataTable(table.timestamps, columns) };
}

/** The table with the host-context columns (HOST_CONTEXT_FEATURES) added. */
export function addHostContext(group: NodeTypeTable, hostOf: (vm: string) => HostContextSeries): NodeTypeTable {
  const rows = group.table.rowCount;
  const busy = new Float64Array(rows);
  const usageRatio = new Float64Array(rows);
  const activeWatts = Object.fromEntries(HOST_ZONES.map((zone) => [zone, new Float64Array(rows)]));
  const hostCpus = new Float64Array(rows);
  const guest = new Map(group.table.columnNames.map((name) => [name, getColumn(group.table, name)] as const));
  for (const vm of group.vms) {
    const block = new Map([...guest].map(([name, values]) => [name, values.subarray(vm.firstRow, vm.firstRow + vm.rowCount)]));
    busy.set(guestBusyVcpus(block, vm.vcpus), vm.firstRow);
    const timestamps = group.table.timestamps.subarray(vm.firstRow, vm.firstRow + vm.rowCount);
    const host = hostAtTimestamps(hostOf(vm.name), timestamps);
    hostCpus.fill(host.hostCpus, vm.firstRow, vm.firstRow + vm.rowCount);
    usageRatio.set(host.usageRatio, vm.firstRow);
    for (const zone of HOST_ZONES) activeWatts[zone]!.set(host.activeWatts[zone]!, vm.firstRow);
  }
  const columns = hostContextColumns(busy, { hostCpus, usageRatio, activeWatts });
  return withColumns(group, new Map(HOST_CONTEXT_FEATURES.map((name) => [name, columns.get(name)!])));
}

/** The table with `<feature>_lag1` for every guest feature, each VM's first row dropped (it has no previous step). */
export function addLaggedColumns(group: NodeTypeTable, features: readonly string[]): NodeTypeTable {
  const { table } = group;
  const rows = table.rowCount;
  const extra = new Map<string, Float64Array>();
  for (const name of features.filter((f) => f.startsWith("guest_"))) {
    const values = getColumn(table, name);
    const lagged = new Float64Array(rows).fill(Number.NaN);
    for (const vm of group.vms)
      if (vm.rowCount > 1) lagged.set(values.subarray(vm.firstRow, vm.firstRow + vm.rowCount - 1), vm.firstRow + 1);
    extra.set(`${name}${LAG_SUFFIX}`, lagged);
  }
  const widened = withColumns(group, extra).table;
  // Keep every row but each VM's first: rows whose previous step is the same VM's (and is consecutive).
  const keep: number[] = [];
  const vms = group.vms.map((vm) => {
    const firstRow = keep.length;
    for (let r = vm.firstRow + 1; r < vm.firstRow + vm.rowCount; r++) keep.push(r);
    return { ...vm, firstRow, rowCount: keep.length - firstRow };
  });
  const index = Uint32Array.from(keep);
  const kept = takeRows({ rows, cols: widened.columnNames.length, values: widened.values }, index);
  const timestamps = takeRows({ rows, cols: 1, values: widened.timestamps }, index).values;
  const columns = widened.columnNames.map(
    (name, j) => [name, kept.values.subarray(j * keep.length, (j + 1) * keep.length)] as const,
  );
  return { ...group, vms, table: createDataTable(timestamps, columns) };
}
