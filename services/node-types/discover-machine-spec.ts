// Discovers the local machine's spec from /proc and /sys, as the reference's discover_spec_values does
// with py-cpuinfo, psutil and pyudev (spec §6.5). The roots are parameters so tests can use a fake tree.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { formatProcessor, formatVendor } from "./format-processor.js";

/** A discovered machine: the five matching attributes plus the informational ones. */
export interface DiscoveredMachineSpec {
  processor: string;
  vendor: string;
  /** Logical CPUs. */
  cores: number;
  /** Distinct physical packages, at least 1. */
  chips: number;
  /** Memory in whole GiB (truncated, as int(total / GiB)). */
  memory: number;
  /** max(maximum, current) frequency in MHz rounded to 100; undefined when the system reports none. */
  frequency?: number;
  threadsPerCore: number;
}

/** Where to read from; defaults to the real /proc and /sys. */
export interface MachineRoots {
  procRoot?: string;
  sysRoot?: string;
}

const GIB = 1024 * 1024 * 1024;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

// /proc/cpuinfo: blank-line separated blocks of "key : value".
function parseCpuinfo(text: string): Array<Map<string, string>> {
  return text
    .split(/\n\s*\n/)
    .map((block) => {
      const entries = new Map<string, string>();
      for (const line of block.split("\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) entries.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      return entries;
    })
    .filter((block) => block.has("processor"));
}

// Python's round(): half to even.
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const diff = value - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

// psutil.cpu_freq(): the maximum of cpufreq's max frequencies and the mean current frequency (kHz
// files), falling back to /proc/cpuinfo's "cpu MHz" (current only) where cpufreq is absent (VMs).
async function readFrequencyMhz(sysRoot: string, cpus: Array<Map<string, string>>): Promise<number | undefined> {
  const cpufreq = join(sysRoot, "devices/system/cpu/cpufreq");
  let policies: string[];
  try {
    policies = (await readdir(cpufreq)).filter((name) => name.startsWith("policy"));
  } catch {
    policies = [];
  }
  const maxima: number[] = [];
  const currents: number[] = [];
  for (const policy of policies) {
    const max = Number(await readText(join(cpufreq, policy, "cpuinfo_max_freq")));
    const current = Number(await readText(join(cpufreq, policy, "scaling_cur_freq")));
    if (Number.isFinite(max) && max > 0) maxima.push(max / 1000);
    if (Number.isFinite(current) && current > 0) currents.push(current / 1000);
  }
  if (currents.length === 0) {
    for (const cpu of cpus) {
      const mhz = Number(cpu.get("cpu mhz"));
      if (Number.isFinite(mhz) && mhz > 0) currents.push(mhz);
    }
  }
  if (maxima.length === 0 && currents.length === 0) return undefined;
  const max = maxima.length > 0 ? Math.max(...maxima) : 0;
  const current = currents.length > 0 ? currents.reduce((sum, v) => sum + v, 0) / currents.length : 0;
  return roundHalfEven(Math.max(max, current) / 100) * 100;
}

/** Reads the local machine's spec; attributes the system does not report are "" or 0. */
export async function discoverMachineSpec(roots: MachineRoots = {}): Promise<DiscoveredMachineSpec> {
  const procRoot = roots.procRoot ?? "/proc";
  const sysRoot = roots.sysRoot ?? "/sys";
  const cpus = parseCpuinfo((await readText(join(procRoot, "cpuinfo"))) ?? "");
  const first = cpus[0] ?? new Map<string, string>();
  const brand = first.get("model name") ?? first.get("cpu model") ?? first.get("hardware") ?? "";
  const cores = cpus.length;
  const chips = Math.max(1, new Set(cpus.map((cpu) => cpu.get("physical id")).filter((id) => id !== undefined)).size);
  const physicalCores = new Set(
    cpus.filter((cpu) => cpu.has("core id")).map((cpu) => `${cpu.get("physical id") ?? ""}/${cpu.get("core id") ?? ""}`),
  ).size;
  const threadsPerCore = physicalCores > 0 ? Math.max(1, Math.floor(cores / physicalCores)) : 1;
  const memTotal = /^MemTotal:\s+(\d+)\s*kB/m.exec((await readText(join(procRoot, "meminfo"))) ?? "");
  const memory = memTotal ? Math.floor((Number(memTotal[1]) * 1024) / GIB) : 0;
  const dmiVendor = (await readText(join(sysRoot, "class/dmi/id/sys_vendor")))?.trim() ?? "";
  const cpuVendor = first.get("vendor_id") ?? "";
  const vendor = dmiVendor !== "" ? formatVendor(dmiVendor) : cpuVendor !== "" ? formatVendor(cpuVendor) : "";
  const frequency = await readFrequencyMhz(sysRoot, cpus);
  const spec: DiscoveredMachineSpec = { processor: formatProcessor(brand), vendor, cores, chips, memory, threadsPerCore };
  if (frequency !== undefined) spec.frequency = frequency;
  return spec;
}
