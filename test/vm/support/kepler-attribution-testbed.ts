// A second VM test bed, truth made the way Kepler 0.10+ attributes energy to VMs (Kepler v0.11.4,
// internal/monitor/node.go and vm.go): the node's RAPL energy per zone x the node's CPU usage ratio is the
// zone's active energy, and each VM gets active energy x its share of the processes' CPU time; no idle
// share. The node's power comes from a host model that knows nothing of the trainer's features: a
// frequency knee (the clock drops once more than half the host's CPUs are busy), memory traffic (from each
// tenant's instructions per cycle: memory-bound code runs at low IPC), vhost threads for disk and network,
// and other tenants whose guests nobody trains on. Kepler samples on its own clock: the energy a scrape
// sees lags the guest's counters by `keplerOffset` of a step. The guests' counters come from the first
// test bed (test/support/vm-testbed.ts), whose own truth is ignored here.
import {
  DEFAULT_VMS,
  generateVmRecording,
  type TestbedVm,
  type WorkloadKind,
  ZONES,
  type Zone,
} from "../../support/vm-testbed.js";
// mulberry32, as the first test bed: the RAPL noise.
import { random } from "../../support/vm-workloads.js";
import type { QuerySeries, VmQueryResults } from "../../../services/vm-power/training/vm-training-table.js";
import type { HostContextSeries } from "../../../services/vm-power/index.js";
import { guestQueryResults } from "./guest-query-results.js";

export interface AttributionScenario {
  readonly name: string;
  /** Logical CPUs of each VM's host: a number, or a multiple of the VM's vCPUs ("VMs ~ half the host"). */
  readonly hostCpus: number | { perVcpu: number };
  /** Many small tenants whose sum is steady: busy CPUs and memory traffic (GB/s), each with 3 % noise. */
  readonly background: { busyCpus: number; trafficGBps: number };
  /** Tenants with their own phases, on every VM's host, whose guests are not recorded. */
  readonly neighbours: readonly TestbedVm[];
  /** What the neighbours run before and after the held-out start. */
  readonly neighbourWorkloads: readonly WorkloadKind[];
  readonly neighbourHeldOutWorkloads: readonly WorkloadKind[];
}

const STANDARD: readonly WorkloadKind[] = ["idle", "cpu", "syscall", "memory", "io", "network"];
const neighbours = (count: number, vcpus: number): TestbedVm[] =>
  Array.from({ length: count }, (_, i) => ({ name: `tenant-${i}`, vcpus, memoryGiB: 2 * vcpus, perf: true }));

/** The scenarios the accuracy numbers are reported for. */
export const ATTRIBUTION_SCENARIOS: readonly AttributionScenario[] = [
  {
    name: "big host, steady neighbours",
    hostCpus: 96,
    background: { busyCpus: 24, trafficGBps: 8 },
    neighbours: [],
    neighbourWorkloads: STANDARD,
    neighbourHeldOutWorkloads: STANDARD,
  },
  {
    name: "memory-bound neighbours (held-out only)",
    hostCpus: 96,
    background: { busyCpus: 24, trafficGBps: 8 },
    neighbours: neighbours(4, 8),
    neighbourWorkloads: STANDARD,
    neighbourHeldOutWorkloads: ["memory"],
  },
  {
    name: "small host (the VM ~ half of it)",
    hostCpus: { perVcpu: 2 },
    background: { busyCpus: 0.5, trafficGBps: 0.5 },
    neighbours: neighbours(1, 4),
    neighbourWorkloads: STANDARD,
    neighbourHeldOutWorkloads: ["cpu", "memory", "mixed"],
  },
];

/** The VMs whose guests are recorded: the first test bed's six (2, 4, 8 vCPUs) and an unseen 6-vCPU size. */
export const ATTRIBUTION_VMS: readonly TestbedVm[] = [...DEFAULT_VMS, { name: "vm-g", vcpus: 6, memoryGiB: 12, perf: true }];
export const UNSEEN_SIZE_VM = "vm-g";

export interface AttributionOptions {
  readonly seed: number;
  readonly scenario: AttributionScenario;
  readonly startSeconds: number;
  readonly trainSeconds: number;
  readonly heldOutSeconds: number;
  readonly stepSeconds: number;
  /** Fraction of a step Kepler's sampling lags the guests' (default 0.4). */
  readonly keplerOffset?: number;
}

export interface AttributionRecording {
  /** What vm-train's queries answer (vmQueries("vm", DEFAULT_VM_MAPPING)) over the whole recording. */
  readonly results: VmQueryResults;
  readonly timestamps: number[];
  readonly heldOutFromSeconds: number;
  /** What each VM's host publishes per step (host-context.ts' inputs), by VM name. */
  readonly hosts: Map<string, HostContextSeries>;
  /** Kepler's attributed watts per VM and zone per step (index i: (t_{i-1}, t_i]; NaN at 0). */
  readonly keplerWatts: Map<string, Record<Zone, Float64Array>>;
}

/** Per step of one tenant: busy CPUs on the host (vCPU threads + vhost), memory traffic in GB/s. */
interface TenantLoad {
  hostCpu: Float64Array;
  trafficGBps: Float64Array;
}

function sumSeries(
  response: ReturnType<typeof generateVmRecording>["response"],
  metric: string,
  instance: string,
  keep = (_: Record<string, string>) => true,
): Float64Array {
  let out: Float64Array | undefined;
  for (const series of response[metric] ?? []) {
    if (series.metric.instance !== `${instance}:9100` || !keep(series.metric)) continue;
    out ??= new Float64Array(series.values.length);
    series.values.forEach(([, v], i) => (out![i]! += Number(v)));
  }
  return out ?? new Float64Array(0);
}

function tenantLoads(
  recording: ReturnType<typeof generateVmRecording>,
  vms: readonly TestbedVm[],
  step: number,
): Map<string, TenantLoad> {
  const loads = new Map<string, TenantLoad>();
  const busyModes = new Set(["user", "nice", "system", "irq", "softirq"]);
  for (const vm of vms) {
    const busy = sumSeries(recording.response, "node_cpu_seconds_total", vm.name, (m) => busyModes.has(m.mode ?? ""));
    const cycles = sumSeries(recording.response, "node_perf_cpucycles_total", vm.name);
    const instructions = sumSeries(recording.response, "node_perf_instructions_total", vm.name);
    const io = [
      sumSeries(recording.response, "node_disk_read_bytes_total", vm.name),
      sumSeries(recording.response, "node_disk_written_bytes_total", vm.name),
      sumSeries(recording.response, "node_network_receive_bytes_total", vm.name, (m) => m.device !== "lo"),
      sumSeries(recording.response, "node_network_transmit_bytes_total", vm.name),
    ];
    const n = busy.length;
    const hostCpu = new Float64Array(n);
    const trafficGBps = new Float64Array(n);
    for (let i = 1; i < n; i++) {
      const cores = (busy[i]! - busy[i - 1]!) / step;
      const ioBytes = io.reduce((sum, s) => sum + (s[i]! - s[i - 1]!), 0) / step;
      const ipc = (instructions[i]! - instructions[i - 1]!) / Math.max(1, cycles[i]! - cycles[i - 1]!);
      // vCPU threads plus the vhost threads moving the guest's disk and network bytes.
      hostCpu[i] = cores * 1.02 + ioBytes * 1.5e-9;
      // Memory-bound code (low IPC) streams memory; compute-bound code mostly hits the caches.
      trafficGBps[i] = cores * (ipc < 1.1 ? 3.2 : 0.3);
    }
    loads.set(vm.name, { hostCpu, trafficGBps });
  }
  return loads;
}

/** The host model: watts per zone for the busy CPUs, their usage ratio and the memory traffic. */
function nodeWatts(hostCpus: number, busy: number, trafficGBps: number): Record<Zone, number> {
  const usage = Math.min(1, busy / hostCpus);
  // Turbo: full clock up to half the CPUs busy, then down to 60 % at all of them.
  const clock = usage <= 0.5 ? 1 : 1 - 0.4 * ((usage - 0.5) / 0.5);
  const core = 0.1 * hostCpus + 2.6 * busy * clock ** 2;
  const uncore = 2 + 0.1 * hostCpus + 1.1 * trafficGBps + 0.08 * busy;
  const dram = 3 + 0.05 * hostCpus + 1.6 * trafficGBps;
  return { package: 8 + 0.2 * hostCpus + core + uncore, core, uncore, dram };
}

/** Generates the recording (see the file comment). Seeded. */
export function generateAttributionRecording(options: AttributionOptions): AttributionRecording {
  const { scenario, stepSeconds: step } = options;
  const heldOutFromSeconds = options.startSeconds + options.trainSeconds;
  const common = {
    startSeconds: options.startSeconds,
    durationSeconds: options.trainSeconds + options.heldOutSeconds,
    stepSeconds: step,
    heldOutFromSeconds,
  };
  const guests = generateVmRecording({
    ...common,
    seed: options.seed,
    vms: ATTRIBUTION_VMS,
    workloads: STANDARD,
    heldOutWorkloads: ["mixed"],
  });
  const others = generateVmRecording({
    ...common,
    seed: options.seed + 1000,
    vms: scenario.neighbours,
    workloads: scenario.neighbourWorkloads,
    heldOutWorkloads: scenario.neighbourHeldOutWorkloads,
  });
  const loads = new Map([...tenantLoads(guests, ATTRIBUTION_VMS, step), ...tenantLoads(others, scenario.neighbours, step)]);
  const n = guests.timestamps.length;
  const rand = random(options.seed + 7);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const offset = options.keplerOffset ?? 0.4;
  // Each recorded VM on its own host, with the scenario's background and neighbours.
  const hosts = new Map<string, HostContextSeries>();
  const share = new Map<string, Float64Array>();
  for (const vm of ATTRIBUTION_VMS) {
    const hostCpus = typeof scenario.hostCpus === "number" ? scenario.hostCpus : scenario.hostCpus.perVcpu * vm.vcpus;
    const host: HostContextSeries = {
      timestampsSeconds: Float64Array.from(guests.timestamps),
      hostCpus,
      usageRatio: new Float64Array(n),
      activeWatts: Object.fromEntries(ZONES.map((z) => [z, new Float64Array(n)])) as Record<Zone, Float64Array>,
    };
    const own = loads.get(vm.name)!;
    const vmShare = new Float64Array(n);
    for (let i = 1; i < n; i++) {
      let busy = 0.2 + scenario.background.busyCpus * (1 + 0.03 * gauss()) + own.hostCpu[i]!;
      let traffic = 0.4 + scenario.background.trafficGBps * (1 + 0.03 * gauss()) + own.trafficGBps[i]!;
      for (const tenant of scenario.neighbours) {
        busy += loads.get(tenant.name)!.hostCpu[i]!;
        traffic += loads.get(tenant.name)!.trafficGBps[i]!;
      }
      busy = Math.min(busy, hostCpus);
      const watts = nodeWatts(hostCpus, busy, traffic);
      const usage = busy / hostCpus;
      host.usageRatio[i] = usage;
      for (const zone of ZONES) host.activeWatts[zone][i] = watts[zone] * (1 + 0.01 * gauss()) * usage;
      vmShare[i] = Math.min(1, own.hostCpu[i]! / busy);
    }
    hosts.set(vm.name, host);
    share.set(vm.name, vmShare);
  }
  const keplerWatts = new Map<string, Record<Zone, Float64Array>>();
  const power: QuerySeries[] = [];
  for (const vm of ATTRIBUTION_VMS) {
    const zones = {} as Record<Zone, Float64Array>;
    for (const zone of ZONES) {
      const attributed = new Float64Array(n).fill(Number.NaN);
      const joules: Array<[number, string]> = [[guests.timestamps[0]!, "1000"]];
      let total = 1000;
      for (let i = 1; i < n; i++) {
        const active = hosts.get(vm.name)!.activeWatts[zone];
        const now = share.get(vm.name)![i]! * active[i]!;
        const before = i > 1 ? share.get(vm.name)![i - 1]! * active[i - 1]! : now;
        attributed[i] = (1 - offset) * now + offset * before;
        total += attributed[i]! * step;
        joules.push([guests.timestamps[i]!, String(total)]);
      }
      zones[zone] = attributed;
      power.push({ metric: { vm_name: vm.name, zone }, values: joules });
    }
    keplerWatts.set(vm.name, zones);
  }
  // Kepler's usage ratio and active watts for step i describe (t_{i-1}, t_i] on its clock: lagged as the VMs'.
  for (const host of hosts.values()) {
    for (const zone of ZONES) host.activeWatts[zone] = lagged(host.activeWatts[zone], offset);
    host.usageRatio = lagged(host.usageRatio, offset);
  }
  return {
    results: { ...guestQueryResults(guests.response), power_joules: power, ...hostAnswers(hosts, guests.timestamps) },
    timestamps: guests.timestamps,
    heldOutFromSeconds,
    hosts,
    keplerWatts,
  };
}

// What vm-train's host-context queries answer (hostContextQueries): each VM on host "host-<vm>".
function hostAnswers(hosts: Map<string, HostContextSeries>, timestamps: number[]): VmQueryResults {
  const series = (metric: Record<string, string>, values: ArrayLike<number>): QuerySeries => ({
    metric,
    values: timestamps.slice(1).map((t, i) => [t, String(values[i + 1])]),
  });
  const answers: VmQueryResults = { vm_host: [], host_usage_ratio: [], host_active_watts: [] };
  for (const [vm, host] of hosts) {
    const node = { node_name: `host-${vm}` };
    answers.vm_host!.push(
      series(
        { vm_name: vm, ...node },
        timestamps.map(() => 1),
      ),
    );
    answers.host_usage_ratio!.push(series(node, host.usageRatio));
    for (const zone of ZONES) answers.host_active_watts!.push(series({ ...node, zone }, host.activeWatts[zone]));
  }
  return answers;
}

function lagged(values: Float64Array, offset: number): Float64Array {
  return values.map((v, i) => (i > 1 ? (1 - offset) * v + offset * values[i - 1]! : v));
}
