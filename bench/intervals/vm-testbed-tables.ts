// The VM test bed's training tables for the interval bench: the generator of test/vm (six VMs of 2, 4 and 8
// vCPUs, an hour of CPU/syscall/memory/disk/network phases at a 5 s step) backfilled into a real Prometheus,
// queried with vm-train's PromQL, built into one table per VM size and feature group.
import { createPrometheusClient } from "../../services/prometheus/prometheus-client.js";
import { NodeTypeIndex, nodeSpecFrom } from "../../services/node-types/index.js";
import type { DataTable } from "../../services/domain/data-table.js";
import {
  buildVmTrainingTable,
  DEFAULT_VM_MAPPING,
  vmQueries,
  type VmQueryResults,
} from "../../services/vm-power/training/vm-training-table.js";
import { savedResponseToOpenMetrics, startPrometheus } from "../../test/support/prometheus.js";
import { DEFAULT_VMS, generateVmRecording } from "../../test/support/vm-testbed.js";

const STEP = 5;

/** One table per VM size and feature group (GuestOSOnly, GuestOSPerf). */
export async function vmTestbedTables(): Promise<Array<{ data: string; table: DataTable; featureGroup: string }>> {
  const start = Math.floor((Date.now() / 1000 - 86_400) / STEP) * STEP;
  const end = start + 3600;
  const recording = generateVmRecording({
    seed: 7,
    vms: DEFAULT_VMS,
    startSeconds: start,
    durationSeconds: end - start,
    stepSeconds: STEP,
    workloads: ["idle", "cpu", "syscall", "memory", "io", "network"],
  });
  const prometheus = await startPrometheus({
    backfillOpenMetrics: savedResponseToOpenMetrics(recording.response),
    lookbackDelta: "10s",
  });
  try {
    const client = createPrometheusClient({ baseUrl: prometheus.baseUrl, timeoutMs: 30_000 });
    const results: VmQueryResults = {};
    for (const [key, query] of Object.entries(vmQueries("vm", DEFAULT_VM_MAPPING)))
      results[key] = await client.queryRange(query, start, end, STEP);
    const index = new NodeTypeIndex();
    const tables: Array<{ data: string; table: DataTable; featureGroup: string }> = [];
    for (const featureGroup of ["GuestOSOnly", "GuestOSPerf"] as const) {
      const vmTable = await buildVmTrainingTable(results, {
        mapping: DEFAULT_VM_MAPPING,
        featureGroup,
        nodeTypeOf: async (machine, spec) => index.indexMachine(machine, nodeSpecFrom(spec)).nodeType,
      });
      for (const nodeTable of vmTable.nodeTypes)
        tables.push({ data: `vm-testbed ${nodeTable.spec.cores} vCPU ${featureGroup}`, table: nodeTable.table, featureGroup });
    }
    return tables;
  } finally {
    await prometheus.stop();
  }
}
