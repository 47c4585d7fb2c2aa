// Domain tests of what a VM sees of itself: /proc as node exporter reads it, node exporter text, and the
// features the model gets from two readings.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { guestFeatureColumns } from "./guest-features.js";
import { parseNodeExporterText } from "./node-exporter-counters.js";
import { readProcCounters } from "./proc-counters.js";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeProc(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe("readProcCounters", () => {
  it("reads CPU seconds per mode (nice as user, softirq as irq), whole disks only, every interface but lo", async () => {
    root = mkdtempSync(join(tmpdir(), "proc-"));
    writeProc({
      // user nice system idle iowait irq softirq steal
      "proc/stat":
        "cpu  1000 200 300 9000 40 5 15 60 0 0\ncpu0 500 100 150 4500 20 2 7 30 0 0\ncpu1 500 100 150 4500 20 3 8 30 0 0\nintr 7777 1 2\nctxt 12345\n",
      "proc/vmstat": "pgfault 4242\npgmajfault 17\n",
      "proc/diskstats":
        "   8       0 sda 100 0 2000 0 50 0 3000 0 0 0 0\n   8       1 sda1 90 0 1800 0 40 0 2800 0 0 0 0\n   7       0 loop0 5 0 99 0 0 0 0 0 0 0 0\n",
      "proc/net/dev":
        "Inter-|   Receive\n face |bytes packets\n    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n  eth0: 5000 50 0 0 0 0 0 0 7000 70 0 0 0 0 0 0\n",
      "proc/meminfo": "MemTotal:        8000000 kB\nMemFree:  1 kB\nMemAvailable:    6000000 kB\n",
    });
    mkdirSync(join(root, "sys/block/sda"), { recursive: true });
    mkdirSync(join(root, "sys/block/loop0"), { recursive: true });
    const snapshot = await readProcCounters(root, () => 42);
    expect(snapshot).toEqual({
      timestampSeconds: 42,
      vcpus: 2,
      counters: {
        cpu_user_seconds: 12,
        cpu_system_seconds: 3,
        cpu_iowait_seconds: 0.4,
        cpu_irq_seconds: 0.2,
        cpu_steal_seconds: 0.6,
        context_switches: 12345,
        interrupts: 7777,
        page_faults: 4242,
        major_page_faults: 17,
        disk_bytes: (2000 + 3000) * 512,
        network_bytes: 5000 + 7000,
      },
      memoryTotalBytes: 8000000 * 1024,
      memoryAvailableBytes: 6000000 * 1024,
    });
  });
});

describe("parseNodeExporterText", () => {
  it("sums CPUs and devices as the training queries do, and counts vCPUs", () => {
    const text = [
      "# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.",
      'node_cpu_seconds_total{cpu="0",mode="user"} 10',
      'node_cpu_seconds_total{cpu="0",mode="nice"} 1',
      'node_cpu_seconds_total{cpu="0",mode="idle"} 100',
      'node_cpu_seconds_total{cpu="1",mode="user"} 20',
      'node_cpu_seconds_total{cpu="1",mode="softirq"} 2',
      'node_cpu_seconds_total{cpu="1",mode="irq"} 3',
      "node_context_switches_total 555",
      'node_network_receive_bytes_total{device="lo"} 999',
      'node_network_receive_bytes_total{device="eth0"} 100',
      'node_network_transmit_bytes_total{device="eth0"} 50',
      "node_memory_MemTotal_bytes 2048",
      "node_memory_MemAvailable_bytes 1024",
    ].join("\n");
    expect(parseNodeExporterText(text, 7)).toEqual({
      timestampSeconds: 7,
      vcpus: 2,
      counters: { cpu_user_seconds: 31, cpu_irq_seconds: 5, context_switches: 555, network_bytes: 150 },
      memoryTotalBytes: 2048,
      memoryAvailableBytes: 1024,
    });
  });
});

describe("guestFeatureColumns", () => {
  it("turns two readings into per-second rates and CPU fractions per vCPU", () => {
    const columns = guestFeatureColumns({
      timestampsSeconds: Float64Array.of(100, 110),
      counters: {
        cpu_user_seconds: Float64Array.of(50, 58),
        cpu_system_seconds: Float64Array.of(10, 12),
        cpu_iowait_seconds: Float64Array.of(0, 0),
        cpu_steal_seconds: Float64Array.of(1, 1.4),
        cpu_irq_seconds: Float64Array.of(0, 0),
        context_switches: Float64Array.of(1000, 6000),
        interrupts: Float64Array.of(0, 100),
        page_faults: Float64Array.of(0, 0),
        major_page_faults: Float64Array.of(0, 0),
        disk_bytes: Float64Array.of(0, 4096),
        network_bytes: Float64Array.of(0, 1000),
      },
      memoryTotalBytes: Float64Array.of(4, 4),
      memoryAvailableBytes: Float64Array.of(3, 1),
      vcpus: 4,
    });
    const second = (name: string) => columns.get(name)![1];
    expect(second("guest_cpu_user_ratio")).toBeCloseTo(8 / 10 / 4, 12);
    expect(second("guest_cpu_steal_ratio")).toBeCloseTo(0.4 / 10 / 4, 12);
    expect(second("guest_context_switches_per_second")).toBe(500);
    expect(second("guest_disk_bytes_per_second")).toBeCloseTo(409.6, 12);
    expect(second("guest_memory_used_ratio")).toBe(0.75);
    expect(Number.isNaN(columns.get("guest_cpu_user_ratio")![0])).toBe(true);
    expect(columns.has("guest_cpu_cycles_per_second")).toBe(false);
  });
});
