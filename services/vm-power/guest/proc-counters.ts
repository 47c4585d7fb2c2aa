// The guest's counters straight from its kernel (/proc), as node exporter reads them: /proc/stat (CPU
// time per mode in USER_HZ, context switches, interrupts), /proc/vmstat (page faults), /proc/diskstats
// (whole disks only, 512-byte sectors), /proc/net/dev (every interface but lo), /proc/meminfo.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { GuestSnapshot } from "./guest-snapshot.js";

/** USER_HZ: Linux reports /proc/stat CPU time in 1/100 s on every architecture it exports to user space. */
const USER_HZ = 100;
// Virtual block devices that are not disks of the VM.
const NOT_A_DISK = /^(loop|ram|zram|dm-|md|sr|fd)/;

async function wholeDisks(sysBlock: string): Promise<Set<string>> {
  try {
    return new Set((await readdir(sysBlock)).filter((name) => !NOT_A_DISK.test(name)));
  } catch {
    return new Set();
  }
}

/** Reads one snapshot. `root` is the file system root (tests point it at a fixture; default "/"). */
export async function readProcCounters(root = "/", now: () => number = () => Date.now() / 1000): Promise<GuestSnapshot> {
  const [stat, vmstat, diskstats, netdev, meminfo, disks] = await Promise.all([
    readFile(join(root, "proc/stat"), "utf8"),
    readFile(join(root, "proc/vmstat"), "utf8"),
    readFile(join(root, "proc/diskstats"), "utf8").catch(() => ""),
    readFile(join(root, "proc/net/dev"), "utf8").catch(() => ""),
    readFile(join(root, "proc/meminfo"), "utf8"),
    wholeDisks(join(root, "sys/block")),
  ]);
  const timestampSeconds = now();
  const counters: GuestSnapshot["counters"] = {};
  let vcpus = 0;
  for (const line of stat.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const name = fields[0] ?? "";
    if (name === "cpu") {
      // user nice system idle iowait irq softirq steal: nice counts as user, softirq as irq.
      const [user, nice, system, , iowait, irq, softirq, steal] = fields.slice(1, 9).map(Number) as number[];
      counters.cpu_user_seconds = (user! + nice!) / USER_HZ;
      counters.cpu_system_seconds = system! / USER_HZ;
      counters.cpu_iowait_seconds = iowait! / USER_HZ;
      counters.cpu_irq_seconds = (irq! + softirq!) / USER_HZ;
      counters.cpu_steal_seconds = (steal ?? 0) / USER_HZ;
    } else if (/^cpu\d+$/.test(name)) vcpus++;
    else if (name === "ctxt") counters.context_switches = Number(fields[1]);
    else if (name === "intr") counters.interrupts = Number(fields[1]);
  }
  for (const line of vmstat.split("\n")) {
    const [name, value] = line.split(" ");
    if (name === "pgfault") counters.page_faults = Number(value);
    if (name === "pgmajfault") counters.major_page_faults = Number(value);
  }
  let diskSectors = 0;
  for (const line of diskstats.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || !disks.has(fields[2] ?? "")) continue;
    diskSectors += Number(fields[5]) + Number(fields[9]);
  }
  counters.disk_bytes = diskSectors * 512;
  let networkBytes = 0;
  for (const line of netdev.split("\n").slice(2)) {
    const [name, rest] = line.split(":");
    if (rest === undefined || name?.trim() === "lo") continue;
    const fields = rest.trim().split(/\s+/);
    networkBytes += Number(fields[0]) + Number(fields[8]);
  }
  counters.network_bytes = networkBytes;
  const memory = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(meminfo)?.[1] ?? Number.NaN) * 1024;
  return {
    timestampSeconds,
    vcpus,
    counters,
    memoryTotalBytes: memory("MemTotal"),
    memoryAvailableBytes: memory("MemAvailable"),
  };
}
