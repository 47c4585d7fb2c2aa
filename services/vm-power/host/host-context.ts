// Host context: what a guest cannot see of its host, published by the host's Kepler 0.10+
// (`kepler_node_cpu_usage_ratio`, `kepler_node_cpu_active_watts{zone}`) and node exporter (its CPU count),
// as optional features. Kepler gives a VM the node's active watts x the VM's share of the processes' CPU
// time, so the features are the host's usage ratio, its active watts per busy CPU per zone, and the
// guest's busy vCPUs at those watts (`guest_host_<zone>_watts`): Kepler's own attribution rule applied to
// the host's numbers, which is what recovers the neighbours' effect a guest's counters cannot show.
// Every per-row product and gather runs in wasm-core.
import { createMatrix, indexOfValues, multiplyRows, predictLinear, takeElements } from "../../../wasm-core/src/index.js";

export const HOST_ZONES = ["package", "core", "uncore", "dram"] as const;

/**
 * The host-context features a model is trained on, sorted: the guest's busy vCPUs at the host's active
 * watts per busy CPU, per zone. The raw host columns (usage ratio, watts per busy CPU) are computed too but
 * not trained on: measured on the attribution test bed, a linear fit leans on them with a large intercept
 * and extrapolates badly to a host load it has not seen.
 */
export const HOST_CONTEXT_FEATURES: readonly string[] = HOST_ZONES.map((zone) => `guest_host_${zone}_watts`).sort();

/** The host's published numbers per step (one host). */
export interface HostContextSeries {
  timestampsSeconds: Float64Array;
  hostCpus: number;
  usageRatio: Float64Array;
  activeWatts: Record<(typeof HOST_ZONES)[number], Float64Array>;
}

/** One reading of the host (the exporter's tick). */
export interface HostContextReading {
  hostCpus: number;
  usageRatio: number;
  activeWatts: Record<(typeof HOST_ZONES)[number], number>;
}

/** The guest's CPU modes that run on the host's CPUs (iowait and steal do not). */
const BUSY_MODES = ["guest_cpu_irq_ratio", "guest_cpu_system_ratio", "guest_cpu_user_ratio"] as const;

/** The guest's busy vCPUs per row: vcpus x (user + system + irq). */
export function guestBusyVcpus(columns: ReadonlyMap<string, Float64Array>, vcpus: number): Float64Array {
  const parts = BUSY_MODES.map((name) => {
    const column = columns.get(name);
    if (column === undefined) throw new Error(`host context needs the guest feature ${name}`);
    return column;
  });
  const rows = parts[0]!.length;
  const values = new Float64Array(rows * parts.length);
  parts.forEach((column, j) => values.set(column, j * rows));
  return predictLinear(
    { coefficients: Float64Array.from(parts, () => vcpus), intercept: 0 },
    createMatrix(rows, parts.length, values),
  );
}

/** The host-context columns for rows whose host readings are given per row (see the file comment). */
export function hostContextColumns(
  busyVcpus: Float64Array,
  host: { hostCpus: number | Float64Array; usageRatio: Float64Array; activeWatts: Record<string, Float64Array> },
): Map<string, Float64Array> {
  const rows = busyVcpus.length;
  // Busy host CPUs = usage ratio x CPUs; watts per busy CPU = active watts / busy CPUs (0 on an idle host).
  const cpus = typeof host.hostCpus === "number" ? new Float64Array(rows).fill(host.hostCpus) : host.hostCpus;
  const busyHostCpus = multiplyRows({ rows, cols: 1, values: Float64Array.from(host.usageRatio) }, cpus).values;
  const inverse = Float64Array.from(busyHostCpus, (b) => (b > 0 ? 1 / b : 0));
  const active = new Float64Array(rows * HOST_ZONES.length);
  HOST_ZONES.forEach((zone, j) => active.set(host.activeWatts[zone]!, j * rows));
  const perBusyCpu = multiplyRows({ rows, cols: HOST_ZONES.length, values: active }, inverse).values;
  const attributed = multiplyRows({ rows, cols: HOST_ZONES.length, values: perBusyCpu }, busyVcpus).values;
  const columns = new Map<string, Float64Array>([["host_cpu_usage_ratio", Float64Array.from(host.usageRatio)]]);
  HOST_ZONES.forEach((zone, j) => {
    columns.set(`host_${zone}_watts_per_busy_cpu`, perBusyCpu.slice(j * rows, (j + 1) * rows));
    columns.set(`guest_host_${zone}_watts`, attributed.slice(j * rows, (j + 1) * rows));
  });
  return columns;
}

/** The host's series at the given timestamps (NaN where the host has no step). */
export function hostAtTimestamps(
  host: HostContextSeries,
  timestamps: Float64Array,
): { hostCpus: number; usageRatio: Float64Array; activeWatts: Record<string, Float64Array> } {
  const index = indexOfValues(host.timestampsSeconds, timestamps);
  const missing = index.some((i) => i < 0);
  const padded = (values: Float64Array) => Float64Array.of(...values, Number.NaN);
  const at = Uint32Array.from(index, (i) => (i < 0 ? host.timestampsSeconds.length : i));
  const take = (values: Float64Array) => takeElements(missing ? padded(values) : values, at);
  return {
    hostCpus: host.hostCpus,
    usageRatio: take(host.usageRatio),
    activeWatts: Object.fromEntries(HOST_ZONES.map((zone) => [zone, take(host.activeWatts[zone])])),
  };
}

/** One tick's host-context features (the exporter's single row). */
export function hostContextRow(busyVcpus: number, reading: HostContextReading): Map<string, number> {
  const columns = hostContextColumns(Float64Array.of(busyVcpus), {
    hostCpus: reading.hostCpus,
    usageRatio: Float64Array.of(reading.usageRatio),
    activeWatts: Object.fromEntries(HOST_ZONES.map((zone) => [zone, Float64Array.of(reading.activeWatts[zone])])),
  });
  return new Map([...columns].map(([name, values]) => [name, values[0]!]));
}
