// The hosts' context series for training (host-context.ts' features): what vm-train asks Prometheus for
// each host (its Kepler's usage ratio and active watts per zone, by node_name) and which host each VM ran
// on (the node_name label of its kepler_vm_cpu_joules_total). The hosts' logical CPU count is the
// operator's (--host-cpus): Kepler's power series do not carry it.
import { InvalidInputError } from "../../domain/errors.js";
import { HOST_ZONES, type HostContextSeries } from "../host/host-context.js";
import type { QuerySeries, VmMapping, VmQueryResults } from "./vm-training-table.js";

/** The extra query keys and their PromQL. */
export function hostContextQueries(mapping: VmMapping): Record<string, string> {
  return {
    vm_host: `count by (${mapping.hostLabel}, node_name) (kepler_vm_cpu_joules_total)`,
    host_usage_ratio: "max by (node_name) (kepler_node_cpu_usage_ratio)",
    host_active_watts: "sum by (node_name, zone) (kepler_node_cpu_active_watts)",
  };
}

function valuesOf(series: QuerySeries | undefined, axis: Float64Array): Float64Array {
  const byTime = new Map((series?.values ?? []).map(([t, v]) => [t, Number(v)] as const));
  return Float64Array.from(axis, (t) => byTime.get(t) ?? Number.NaN);
}

/** Each VM's host series, by VM name (mapping.hostLabel), from the answers to hostContextQueries. */
export function hostContextOf(results: VmQueryResults, mapping: VmMapping, hostCpus: number): (vm: string) => HostContextSeries {
  const hostOfVm = new Map<string, string>();
  for (const series of results.vm_host ?? []) {
    const vm = series.metric[mapping.hostLabel];
    const host = series.metric.node_name;
    if (vm !== undefined && host !== undefined) hostOfVm.set(vm, host);
  }
  return (vm) => {
    const host = hostOfVm.get(vm);
    if (host === undefined)
      throw new InvalidInputError("vm_host", `no node_name for ${mapping.hostLabel}="${vm}" in kepler_vm_cpu_joules_total`);
    const usage = (results.host_usage_ratio ?? []).find((s) => s.metric.node_name === host);
    if (usage === undefined)
      throw new InvalidInputError("host_usage_ratio", `no kepler_node_cpu_usage_ratio for node_name="${host}"`);
    const axis = Float64Array.from(usage.values, ([t]) => t);
    const active = (zone: string) =>
      valuesOf(
        (results.host_active_watts ?? []).find((s) => s.metric.node_name === host && s.metric.zone === zone),
        axis,
      );
    return {
      timestampsSeconds: axis,
      hostCpus,
      usageRatio: valuesOf(usage, axis),
      activeWatts: Object.fromEntries(HOST_ZONES.map((zone) => [zone, active(zone)])) as HostContextSeries["activeWatts"],
    };
  };
}
