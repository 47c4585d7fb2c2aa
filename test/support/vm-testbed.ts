// A test bed for VM power under Kepler 0.10+ without real VMs: one host running several VMs (2 to 8 vCPUs)
// through phases of CPU, syscall, memory, disk, network and mixed work with steal time, written as what
// Prometheus would hold: the host's Kepler 0.10 counters (`kepler_vm_cpu_joules_total{vm_id,vm_name,zone}`,
// `kepler_node_cpu_joules_total{zone,path}`) and each guest's node exporter counters (instance =
// "<vm_name>:9100"). Power per zone is a known function of the guest's activity plus 1.5% noise, so a
// model's error can be measured against the truth. Seeded: the same options give the same recording.
import type { SavedResponseDocument } from "./prometheus.js";
import {
  activityOf,
  mixedActivity,
  random,
  type TestbedVm,
  truePower,
  type WorkloadKind,
  type Zone,
  ZONES,
} from "./vm-workloads.js";

export { type TestbedVm, type WorkloadKind, type Zone, ZONES } from "./vm-workloads.js";

export interface TestbedOptions {
  readonly seed: number;
  readonly vms: readonly TestbedVm[];
  readonly startSeconds: number;
  readonly durationSeconds: number;
  readonly stepSeconds: number;
  /** Workloads the phases draw from. */
  readonly workloads: readonly WorkloadKind[];
  /** From this time on (Unix seconds), phases draw from `heldOutWorkloads` instead (data to test on). */
  readonly heldOutFromSeconds?: number;
  readonly heldOutWorkloads?: readonly WorkloadKind[];
  readonly hostName?: string;
}

/** The recording, and the true average power of each VM and zone over each step (index i: (t_{i-1}, t_i]). */
export interface TestbedRecording {
  readonly response: SavedResponseDocument;
  readonly timestamps: number[];
  readonly truthWatts: Map<string, Record<Zone, number[]>>;
}

export const DEFAULT_VMS: readonly TestbedVm[] = [
  { name: "vm-a", vcpus: 2, memoryGiB: 4, perf: true },
  { name: "vm-b", vcpus: 2, memoryGiB: 4, perf: true },
  { name: "vm-c", vcpus: 4, memoryGiB: 8, perf: true },
  { name: "vm-d", vcpus: 4, memoryGiB: 8, perf: true },
  { name: "vm-e", vcpus: 8, memoryGiB: 16, perf: true },
  { name: "vm-f", vcpus: 8, memoryGiB: 16, perf: true },
];

/** Generates a recording (see the file comment). */
export function generateVmRecording(options: TestbedOptions): TestbedRecording {
  const rand = random(options.seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const host = options.hostName ?? "host-1";
  const steps = Math.floor(options.durationSeconds / options.stepSeconds) + 1;
  const timestamps = Array.from({ length: steps }, (_, i) => options.startSeconds + i * options.stepSeconds);
  const response: SavedResponseDocument = {};
  const add = (metric: string, labels: Record<string, string>, values: number[]) => {
    (response[metric] ??= []).push({
      metric: { __name__: metric, ...labels },
      values: values.map((value, i) => [timestamps[i]!, String(value)]),
    });
  };
  const truthWatts = new Map<string, Record<Zone, number[]>>();
  const hostJoules: Record<Zone, number[]> = { package: [], core: [], uncore: [], dram: [] };
  // The host's own idle share (not any VM's) on top of the VMs.
  const hostIdle: Record<Zone, number> = { package: 22, core: 4, uncore: 6, dram: 5 };
  for (const zone of ZONES) hostJoules[zone] = timestamps.map((_, i) => 1e6 + hostIdle[zone] * i * options.stepSeconds);

  for (const [vmIndex, vm] of options.vms.entries()) {
    const guest = { instance: `${vm.name}:9100`, job: "vm-node-exporter" };
    const cpuModes = ["user", "system", "iowait", "irq", "softirq", "steal", "idle"] as const;
    const cpuSeconds = Array.from({ length: vm.vcpus }, () => Object.fromEntries(cpuModes.map((m) => [m, [] as number[]])));
    const counters = {
      contextSwitches: [] as number[],
      interrupts: [] as number[],
      pageFaults: [] as number[],
      majorPageFaults: [] as number[],
      diskRead: [] as number[],
      diskWritten: [] as number[],
      networkReceived: [] as number[],
      networkSent: [] as number[],
      cycles: Array.from({ length: vm.vcpus }, () => [] as number[]),
      instructions: Array.from({ length: vm.vcpus }, () => [] as number[]),
    };
    const memoryAvailable: number[] = [];
    const load1: number[] = [];
    const truth: Record<Zone, number[]> = { package: [], core: [], uncore: [], dram: [] };
    const joules: Record<Zone, number[]> = { package: [], core: [], uncore: [], dram: [] };
    const totals = { ctx: 1e6 * (vmIndex + 1), intr: 2e6, pf: 3e7, majpf: 1e3, read: 1e9, written: 2e9, rx: 3e9, tx: 1e9 };
    const cpuTotals = Array.from(
      { length: vm.vcpus },
      () => Object.fromEntries(cpuModes.map((m) => [m, 1000 + rand() * 100])) as Record<(typeof cpuModes)[number], number>,
    );
    const perfTotals = Array.from({ length: vm.vcpus }, () => ({ cycles: 1e12, instructions: 2e12 }));
    const zoneTotals: Record<Zone, number> = { package: 5e4, core: 3e4, uncore: 1e4, dram: 1e4 };
    let phaseLeft = 0;
    let activity = activityOf("idle", 0, vm.vcpus);
    let kind: WorkloadKind = "idle";
    let intensity = 0;
    for (let i = 0; i < steps; i++) {
      if (i > 0) {
        const heldOut = options.heldOutFromSeconds !== undefined && timestamps[i]! >= options.heldOutFromSeconds;
        if (heldOut && options.heldOutFromSeconds === timestamps[i]) phaseLeft = 0;
        if (phaseLeft <= 0) {
          const pool = heldOut ? (options.heldOutWorkloads ?? options.workloads) : options.workloads;
          kind = pool[Math.floor(rand() * pool.length)]!;
          intensity = 0.2 + 0.8 * rand();
          phaseLeft = Math.round((120 + rand() * 240) / options.stepSeconds);
        }
        phaseLeft--;
        // Each step wobbles around the phase's level; steal comes and goes with the host's load.
        const wobble = 0.85 + 0.3 * rand();
        activity = kind === "mixed" ? mixedActivity(rand, vm.vcpus) : activityOf(kind, Math.min(1, intensity * wobble), vm.vcpus);
        activity.steal = rand() < 0.3 ? 0.08 * rand() : 0.004 * rand();
        const idle = Math.max(0, 1 - activity.user - activity.system - activity.iowait - activity.irq - activity.steal);
        const dt = options.stepSeconds;
        for (let c = 0; c < vm.vcpus; c++) {
          const jitter = 0.9 + 0.2 * rand();
          const t = cpuTotals[c]!;
          t.user += activity.user * jitter * dt;
          t.system += activity.system * jitter * dt;
          t.iowait += activity.iowait * dt;
          t.irq += activity.irq * 0.4 * dt;
          t.softirq += activity.irq * 0.6 * dt;
          t.steal += activity.steal * dt;
          t.idle += Math.max(0, idle + (1 - jitter) * (activity.user + activity.system)) * dt;
          const p = perfTotals[c]!;
          const busyCpu = (activity.user + activity.system + activity.irq) * jitter;
          p.cycles += busyCpu * 2.6e9 * dt;
          p.instructions += busyCpu * 2.6e9 * (kind === "memory" ? 0.7 : 1.6) * dt;
        }
        totals.ctx += activity.contextSwitches * dt;
        totals.intr += activity.interrupts * dt;
        totals.pf += activity.pageFaults * dt;
        totals.majpf += activity.majorPageFaults * dt;
        totals.read += activity.diskBytes * 0.6 * dt;
        totals.written += activity.diskBytes * 0.4 * dt;
        totals.rx += activity.networkBytes * 0.5 * dt;
        totals.tx += activity.networkBytes * 0.5 * dt;
        const watts = truePower(activity, vm);
        for (const zone of ZONES) {
          const measured = watts[zone] * (1 + 0.015 * gauss());
          truth[zone].push(watts[zone]);
          zoneTotals[zone] += measured * dt;
        }
      }
      for (const zone of ZONES) {
        joules[zone].push(zoneTotals[zone]);
        hostJoules[zone][i] = hostJoules[zone][i]! + zoneTotals[zone];
      }
      for (let c = 0; c < vm.vcpus; c++) for (const m of cpuModes) cpuSeconds[c]![m]!.push(cpuTotals[c]![m]!);
      counters.contextSwitches.push(Math.round(totals.ctx));
      counters.interrupts.push(Math.round(totals.intr));
      counters.pageFaults.push(Math.round(totals.pf));
      counters.majorPageFaults.push(Math.round(totals.majpf));
      counters.diskRead.push(Math.round(totals.read));
      counters.diskWritten.push(Math.round(totals.written));
      counters.networkReceived.push(Math.round(totals.rx));
      counters.networkSent.push(Math.round(totals.tx));
      for (let c = 0; c < vm.vcpus; c++) {
        counters.cycles[c]!.push(Math.round(perfTotals[c]!.cycles));
        counters.instructions[c]!.push(Math.round(perfTotals[c]!.instructions));
      }
      const memoryTotal = vm.memoryGiB * 2 ** 30;
      memoryAvailable.push(Math.round(memoryTotal * (1 - activity.memoryUsed)));
      load1.push((activity.user + activity.system) * vm.vcpus);
    }
    // Step 0 has no interval: its truth is unknown (NaN), as its rate is.
    for (const zone of ZONES) truth[zone].unshift(Number.NaN);
    truthWatts.set(vm.name, truth);

    const vmLabels = {
      vm_id: `${vmIndex + 1}`.padStart(8, "0"),
      vm_name: vm.name,
      hypervisor: "kvm",
      state: "running",
      node_name: host,
    };
    for (const zone of ZONES) add("kepler_vm_cpu_joules_total", { ...vmLabels, zone }, joules[zone]);
    for (let c = 0; c < vm.vcpus; c++)
      for (const m of cpuModes) add("node_cpu_seconds_total", { ...guest, cpu: String(c), mode: m }, cpuSeconds[c]![m]!);
    add("node_context_switches_total", guest, counters.contextSwitches);
    add("node_intr_total", guest, counters.interrupts);
    add("node_vmstat_pgfault", guest, counters.pageFaults);
    add("node_vmstat_pgmajfault", guest, counters.majorPageFaults);
    add("node_disk_read_bytes_total", { ...guest, device: "vda" }, counters.diskRead);
    add("node_disk_written_bytes_total", { ...guest, device: "vda" }, counters.diskWritten);
    add("node_network_receive_bytes_total", { ...guest, device: "eth0" }, counters.networkReceived);
    add("node_network_transmit_bytes_total", { ...guest, device: "eth0" }, counters.networkSent);
    // The loopback device is not the VM's traffic.
    add(
      "node_network_receive_bytes_total",
      { ...guest, device: "lo" },
      counters.networkReceived.map((_, i) => 1000 * i),
    );
    add(
      "node_memory_MemTotal_bytes",
      guest,
      memoryAvailable.map(() => vm.memoryGiB * 2 ** 30),
    );
    add("node_memory_MemAvailable_bytes", guest, memoryAvailable);
    add("node_load1", guest, load1);
    if (vm.perf) {
      for (let c = 0; c < vm.vcpus; c++) {
        add("node_perf_cpucycles_total", { ...guest, cpu: String(c) }, counters.cycles[c]!);
        add("node_perf_instructions_total", { ...guest, cpu: String(c) }, counters.instructions[c]!);
      }
    }
  }
  for (const zone of ZONES)
    add("kepler_node_cpu_joules_total", { zone, path: `/sys/class/powercap/intel-rapl:0`, node_name: host }, hostJoules[zone]);
  return { response, timestamps, truthWatts };
}
