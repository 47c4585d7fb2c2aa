// Kepler 0.10+ host measurements + each guest's node exporter counters -> one training table for the
// GuestOSOnly / GuestOSPerf groups: a row per (VM, step), the guest's features, the VM's measured power
// per RAPL zone as `<zone>_power` (package, core, uncore, dram: the rapl-sysfs components) and the VM's
// node type (its vCPU count and memory). Prometheus does the label sums (VM_QUERIES); the rates of every
// counter, joules included, are wasm-core's counterToRate.
import { createDataTable, type DataTable } from "../../domain/data-table.js";
import { componentsOf, powerColumn } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import { type FeatureGroupName, featuresOf } from "../../domain/feature-groups.js";
import type { NodeSpec } from "../../node-types/index.js";
import { counterToRate } from "../../../wasm-core/src/index.js";
import { vmSpec } from "../guest/vm-spec.js";
import { GUEST_COUNTER_NAMES, GUEST_CPU_MODES, type GuestCounterName, type GuestCounterSeries } from "../guest/guest-counters.js";
import { guestFeatureColumns, hasPerfCounters } from "../guest/guest-features.js";

/** One series as Prometheus' query_range returns it. */
export interface QuerySeries {
  metric: Record<string, string>;
  values: Array<[number, string]>;
}
/** The answers to VM_QUERIES (a saved response: query key -> series). */
export type VmQueryResults = Record<string, QuerySeries[]>;

/** Whose power is the target: each VM's (`kepler_vm_cpu_joules_total`) or each node's (`kepler_node_cpu_joules_total`). */
export type PowerTarget = "vm" | "node";

/** How host series are matched to guest series (documented defaults: vm_name <-> instance without its port). */
export interface VmMapping {
  /** Label of the host's power series naming the VM (vm_name, vm_id) or node (node_name). */
  hostLabel: string;
  /** Label of the guest's node exporter series naming the same machine (instance, node_name, ...). */
  guestLabel: string;
}

// The guest counters read as one series each under their own names (CPU seconds come per mode, perf
// counters only as a pair).
const SINGLE_SERIES_COUNTERS = GUEST_COUNTER_NAMES.filter((name) => !name.startsWith("cpu_"));

export const DEFAULT_VM_MAPPING: VmMapping = { hostLabel: "vm_name", guestLabel: "instance" };
export const DEFAULT_NODE_MAPPING: VmMapping = { hostLabel: "node_name", guestLabel: "instance" };

/** The PromQL of each query key, for a target and mapping. */
export function vmQueries(target: PowerTarget, mapping: VmMapping): Record<string, string> {
  const by = `sum by (${mapping.guestLabel})`;
  return {
    power_joules:
      target === "vm"
        ? `sum by (${mapping.hostLabel}, zone) (kepler_vm_cpu_joules_total)`
        : `sum by (${mapping.hostLabel}, zone) (kepler_node_cpu_joules_total)`,
    // nice counts as user, softirq as irq (the features' modes), summed by Prometheus into feature_mode.
    cpu_seconds: `sum by (${mapping.guestLabel}, feature_mode) (label_replace(label_replace(label_replace(node_cpu_seconds_total, "feature_mode", "$1", "mode", "(.*)"), "feature_mode", "user", "mode", "nice"), "feature_mode", "irq", "mode", "softirq"))`,
    vcpus: `count by (${mapping.guestLabel}) (node_cpu_seconds_total{mode="idle"})`,
    context_switches: `${by} (node_context_switches_total)`,
    interrupts: `${by} (node_intr_total)`,
    page_faults: `${by} (node_vmstat_pgfault)`,
    major_page_faults: `${by} (node_vmstat_pgmajfault)`,
    disk_bytes: `${by} (node_disk_read_bytes_total) + ${by} (node_disk_written_bytes_total)`,
    network_bytes: `${by} (node_network_receive_bytes_total{device!="lo"}) + ${by} (node_network_transmit_bytes_total{device!="lo"})`,
    memory_total_bytes: `${by} (node_memory_MemTotal_bytes)`,
    memory_available_bytes: `${by} (node_memory_MemAvailable_bytes)`,
    cpu_cycles: `${by} (node_perf_cpucycles_total)`,
    cpu_instructions: `${by} (node_perf_instructions_total)`,
  };
}

/** One VM of the table. */
export interface TableVm {
  name: string;
  vcpus: number;
  spec: NodeSpec;
  nodeType: number;
  /** Rows of this VM in the table: [first, first + rowCount). */
  firstRow: number;
  rowCount: number;
  hasPerf: boolean;
}

/** The rows of one node type (VMs of one vCPU count and memory size): one model per trainer is fitted on it. */
export interface NodeTypeTable {
  nodeType: number;
  spec: NodeSpec;
  table: DataTable;
  /** The VMs in the table, with their rows. */
  vms: TableVm[];
}

export interface VmTable {
  features: readonly string[];
  /** By node type, ascending. */
  nodeTypes: NodeTypeTable[];
  /** VMs left out, and why. */
  skipped: Array<{ machine: string; reason: string }>;
}

// "vm-a:9100" -> "vm-a": node exporter targets carry a port the host's labels do not.
const machineKey = (value: string) => value.replace(/:\d+$/, "");

function seriesByMachine(results: VmQueryResults, key: string, label: string): Map<string, QuerySeries[]> {
  const out = new Map<string, QuerySeries[]>();
  for (const series of results[key] ?? []) {
    const name = series.metric[label];
    if (name === undefined) continue;
    const list = out.get(machineKey(name)) ?? [];
    list.push(series);
    out.set(machineKey(name), list);
  }
  return out;
}

// Values of a series on the given timestamps (NaN where it has no sample).
function onAxis(series: QuerySeries | undefined, axis: readonly number[]): Float64Array {
  const byTime = new Map<number, string>();
  for (const [t, v] of series?.values ?? []) byTime.set(t, v);
  return Float64Array.from(axis, (t) => {
    const v = byTime.get(t);
    return v === undefined ? Number.NaN : Number(v);
  });
}

/**
 * Builds the training table (see the file comment). `nodeTypeOf` indexes each VM's spec (the registry's
 * IndexMachine, or a local index) and returns its node type.
 */
export async function buildVmTrainingTable(
  results: VmQueryResults,
  options: { mapping: VmMapping; featureGroup: FeatureGroupName; nodeTypeOf(machine: string, spec: NodeSpec): Promise<number> },
): Promise<VmTable> {
  const { mapping, featureGroup } = options;
  if (featureGroup !== "GuestOSOnly" && featureGroup !== "GuestOSPerf")
    throw new InvalidInputError("feature_group", `VM models use GuestOSOnly or GuestOSPerf, got ${featureGroup}`);
  const features = featuresOf(featureGroup);
  const zones = componentsOf("rapl-sysfs");
  const power = seriesByMachine(results, "power_joules", mapping.hostLabel);
  if (power.size === 0)
    throw new InvalidInputError(
      "power_joules",
      `no host power series with a ${mapping.hostLabel} label: is Kepler 0.10+ scraped?`,
    );
  const guest = (key: string) => seriesByMachine(results, key, mapping.guestLabel);
  const cpu = guest("cpu_seconds");
  const single: Record<string, Map<string, QuerySeries[]>> = {};
  for (const key of [
    "vcpus",
    ...SINGLE_SERIES_COUNTERS,
    "memory_total_bytes",
    "memory_available_bytes",
    "cpu_cycles",
    "cpu_instructions",
  ])
    single[key] = guest(key);

  const columnNames = [...features, ...zones.map(powerColumn), "node_type"];
  const groups = new Map<number, { spec: NodeSpec; timestamps: number[]; columns: Map<string, number[]>; vms: TableVm[] }>();
  const skipped: VmTable["skipped"] = [];
  for (const machine of [...power.keys()].sort()) {
    const cpuSeries = cpu.get(machine);
    if (cpuSeries === undefined) {
      skipped.push({ machine, reason: `no guest series with ${mapping.guestLabel}="${machine}[:port]"` });
      continue;
    }
    // The grid: the steps of the VM's power series (every query ran at the same start and step).
    const axis = [...new Set((power.get(machine) ?? []).flatMap((s) => s.values.map(([t]) => t)))].sort((a, b) => a - b);
    const first = (key: string) => onAxis(single[key]?.get(machine)?.[0], axis);
    const vcpuValues = first("vcpus");
    const vcpus = vcpuValues.find((v) => Number.isFinite(v) && v > 0);
    if (vcpus === undefined) {
      skipped.push({ machine, reason: 'no node_cpu_seconds_total{mode="idle"} series to count its vCPUs' });
      continue;
    }
    const counters: Partial<Record<GuestCounterName, Float64Array>> = {};
    for (const mode of GUEST_CPU_MODES) {
      const series = cpuSeries.find((s) => s.metric.feature_mode === mode);
      if (series !== undefined) counters[`cpu_${mode}_seconds`] = onAxis(series, axis);
    }
    for (const name of SINGLE_SERIES_COUNTERS) counters[name] = first(name);
    if (single.cpu_cycles?.has(machine) && single.cpu_instructions?.has(machine)) {
      counters.cpu_cycles = first("cpu_cycles");
      counters.cpu_instructions = first("cpu_instructions");
    }
    const series: GuestCounterSeries = {
      timestampsSeconds: Float64Array.from(axis),
      counters,
      memoryTotalBytes: first("memory_total_bytes"),
      memoryAvailableBytes: first("memory_available_bytes"),
      vcpus,
    };
    if (featureGroup === "GuestOSPerf" && !hasPerfCounters(series)) {
      skipped.push({ machine, reason: "no perf counters (node_perf_cpucycles_total, node_perf_instructions_total)" });
      continue;
    }
    const featureColumns = guestFeatureColumns(series);
    const zonePower = new Map(
      zones.map((zone) => {
        const joules = power.get(machine)?.find((s) => s.metric.zone === zone);
        return [zone, counterToRate(axis, onAxis(joules, axis), "prometheus")] as const;
      }),
    );
    const memoryBytes = series.memoryTotalBytes.find((v) => Number.isFinite(v)) ?? 0;
    const spec = vmSpec(vcpus, memoryBytes);
    const nodeType = await options.nodeTypeOf(machine, spec);
    let group = groups.get(nodeType);
    if (group === undefined) {
      group = { spec, timestamps: [], columns: new Map(columnNames.map((c) => [c, []])), vms: [] };
      groups.set(nodeType, group);
    }
    const { timestamps, columns } = group;
    const firstRow = timestamps.length;
    for (let i = 1; i < axis.length; i++) {
      const row = features.map((f) => featureColumns.get(f)![i]!);
      const watts = zones.map((zone) => zonePower.get(zone)![i]!);
      // A row needs every feature and every zone (a missed scrape or a counter gap leaves it out).
      if (![...row, ...watts].every(Number.isFinite)) continue;
      timestamps.push(axis[i]!);
      features.forEach((f, j) => columns.get(f)!.push(row[j]!));
      zones.forEach((zone, j) => columns.get(powerColumn(zone))!.push(watts[j]!));
      columns.get("node_type")!.push(nodeType);
    }
    group.vms.push({
      name: machine,
      vcpus,
      spec,
      nodeType,
      firstRow,
      rowCount: timestamps.length - firstRow,
      hasPerf: hasPerfCounters(series),
    });
  }
  const nodeTypes = [...groups.entries()]
    .filter(([, g]) => g.timestamps.length > 0)
    .sort(([a], [b]) => a - b)
    .map(([nodeType, g]) => ({
      nodeType,
      spec: g.spec,
      vms: g.vms,
      table: createDataTable(g.timestamps, [...g.columns.entries()]),
    }));
  if (nodeTypes.length === 0)
    throw new InvalidInputError(
      "guest",
      `no VM has both host power and guest counters (host ${mapping.hostLabel}: ${[...power.keys()].slice(0, 5).join(", ")}; guest ${mapping.guestLabel}: ${[...cpu.keys()].slice(0, 5).join(", ")})`,
    );
  return { features, nodeTypes, skipped };
}
