// The guest workloads of the VM test bed (vm-testbed.ts) and the power they truly draw: what a guest does in
// one step of each workload kind (CPU fractions, rates, memory in use), and the per-zone watts that activity
// costs, the truth a model's error is measured against. Seeded random numbers, so recordings repeat.

export type WorkloadKind = "idle" | "cpu" | "syscall" | "memory" | "io" | "network" | "mixed";

export interface TestbedVm {
  readonly name: string;
  readonly vcpus: number;
  readonly memoryGiB: number;
  /** Whether the hypervisor passes perf counters through (node_perf_* series). */
  readonly perf: boolean;
}

export const ZONES = ["package", "core", "uncore", "dram"] as const;
export type Zone = (typeof ZONES)[number];

// mulberry32: small, seedable, good enough for test data.
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a guest does during one step: CPU fractions of its vCPU time, rates per second, memory in use. */
export interface Activity {
  user: number;
  system: number;
  iowait: number;
  irq: number;
  steal: number;
  contextSwitches: number;
  interrupts: number;
  pageFaults: number;
  majorPageFaults: number;
  diskBytes: number;
  networkBytes: number;
  memoryUsed: number;
}

export function activityOf(kind: Exclude<WorkloadKind, "mixed">, x: number, vcpus: number): Activity {
  const base: Activity = {
    user: 0.01,
    system: 0.01,
    iowait: 0.002,
    irq: 0.002,
    steal: 0,
    contextSwitches: 150 * vcpus,
    interrupts: 120 * vcpus,
    pageFaults: 40,
    majorPageFaults: 0.1,
    diskBytes: 8e3,
    networkBytes: 2e3,
    memoryUsed: 0.2,
  };
  switch (kind) {
    case "idle":
      return base;
    case "cpu":
      return {
        ...base,
        user: 0.92 * x,
        system: 0.03 * x,
        contextSwitches: base.contextSwitches + 400 * x * vcpus,
        pageFaults: 150,
      };
    case "syscall":
      return { ...base, user: 0.2 * x, system: 0.6 * x, contextSwitches: 40_000 * x * vcpus, interrupts: 4000 * x * vcpus };
    case "memory":
      return {
        ...base,
        user: 0.5 * x,
        system: 0.12 * x,
        pageFaults: 150_000 * x,
        majorPageFaults: 40 * x,
        memoryUsed: 0.3 + 0.6 * x,
      };
    case "io":
      return {
        ...base,
        user: 0.05,
        system: 0.15 * x,
        iowait: 0.5 * x,
        diskBytes: 2e8 * x,
        interrupts: 6000 * x * vcpus,
        majorPageFaults: 150 * x,
      };
    case "network":
      return {
        ...base,
        user: 0.1 * x,
        system: 0.25 * x,
        irq: 0.15 * x,
        networkBytes: 1.2e8 * x,
        interrupts: 15_000 * x * vcpus,
        contextSwitches: 12_000 * x * vcpus,
      };
  }
}

const SIMPLE: ReadonlyArray<Exclude<WorkloadKind, "mixed">> = ["idle", "cpu", "syscall", "memory", "io", "network"];

// A mix of two or three simple workloads at random weights (held-out data: combinations never trained on).
export function mixedActivity(rand: () => number, vcpus: number): Activity {
  const picks = [0, 1, 2].map(() => activityOf(SIMPLE[1 + Math.floor(rand() * 5)]!, 0.3 + 0.7 * rand(), vcpus));
  const weights = picks.map(() => rand());
  const total = weights.reduce((a, b) => a + b, 0);
  const mixed = { ...picks[0]! };
  for (const key of Object.keys(mixed) as Array<keyof Activity>) {
    mixed[key] = picks.reduce((sum, p, i) => sum + (p[key] * weights[i]!) / total, 0);
  }
  // Fractions of CPU time cannot exceed the whole.
  const busy = mixed.user + mixed.system + mixed.iowait + mixed.irq;
  if (busy > 0.97) for (const key of ["user", "system", "iowait", "irq"] as const) mixed[key] *= 0.97 / busy;
  return mixed;
}

/** The true power of a VM per zone (watts), from what it did. */
export function truePower(a: Activity, vm: TestbedVm): Record<Zone, number> {
  const v = vm.vcpus;
  const busy = (a.user + a.system + a.irq) * v;
  // Turbo headroom shrinks as more of the VM's vCPUs are busy: mildly sublinear in CPU work.
  const frequency = 1 - 0.06 * (a.user + a.system + a.irq) ** 2;
  const core =
    0.08 * v +
    frequency * (5.2 * a.user * v + 6.1 * a.system * v + 4.4 * a.irq * v) +
    1.1e-5 * a.contextSwitches +
    0.25 * a.iowait * v;
  const uncore = 0.25 + 0.05 * v + 0.45 * busy + 4e-9 * a.diskBytes + 6e-9 * a.networkBytes + 2e-6 * a.interrupts;
  const packageWatts = 1.2 + 0.3 * v + core + uncore + 0.6 * busy + 1.0e-5 * a.pageFaults;
  const dram =
    0.5 +
    0.12 * vm.memoryGiB * a.memoryUsed +
    2.2e-5 * a.pageFaults +
    3e-3 * a.majorPageFaults +
    2e-9 * a.diskBytes +
    0.25 * a.user * v;
  return { package: packageWatts, core, uncore, dram };
}
