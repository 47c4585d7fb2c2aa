// The guest's counters from a node exporter's /metrics (when the exporter should not read /proc itself,
// e.g. it runs outside the VM): the same series vm-training-table.ts queries from Prometheus.
import { UnavailableError } from "../../domain/errors.js";
import { readCappedText } from "../../domain/capped-response-body.js";
import type { GuestCounterName } from "./guest-counters.js";
import type { GuestSnapshot } from "./guest-snapshot.js";

const CPU_MODE: Record<string, GuestCounterName | undefined> = {
  user: "cpu_user_seconds",
  nice: "cpu_user_seconds",
  system: "cpu_system_seconds",
  iowait: "cpu_iowait_seconds",
  irq: "cpu_irq_seconds",
  softirq: "cpu_irq_seconds",
  steal: "cpu_steal_seconds",
};
const SUMMED: Record<string, GuestCounterName> = {
  node_context_switches_total: "context_switches",
  node_intr_total: "interrupts",
  node_vmstat_pgfault: "page_faults",
  node_vmstat_pgmajfault: "major_page_faults",
  node_disk_read_bytes_total: "disk_bytes",
  node_disk_written_bytes_total: "disk_bytes",
  node_network_receive_bytes_total: "network_bytes",
  node_network_transmit_bytes_total: "network_bytes",
  node_perf_cpucycles_total: "cpu_cycles",
  node_perf_instructions_total: "cpu_instructions",
};
/** A node exporter's /metrics is a few hundred KiB even on large machines; more is not one. */
export const NODE_EXPORTER_MAX_BYTES = 8 * 1024 * 1024;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;

function labelsOf(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of (text ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[match[1]!] = match[2]!;
  return labels;
}

/** Parses node exporter text into a snapshot (sums over CPUs, devices; lo excluded). */
export function parseNodeExporterText(text: string, timestampSeconds: number): GuestSnapshot {
  const counters: GuestSnapshot["counters"] = {};
  const cpus = new Set<string>();
  let memoryTotalBytes = Number.NaN;
  let memoryAvailableBytes = Number.NaN;
  const add = (name: GuestCounterName, value: number) => {
    counters[name] = (counters[name] ?? 0) + value;
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (match === null) continue;
    const [, name, labelText, valueText] = match;
    const value = Number(valueText);
    if (name === "node_cpu_seconds_total") {
      const labels = labelsOf(labelText);
      if (labels.cpu !== undefined) cpus.add(labels.cpu);
      const counter = CPU_MODE[labels.mode ?? ""];
      if (counter !== undefined) add(counter, value);
    } else if (name === "node_memory_MemTotal_bytes") memoryTotalBytes = value;
    else if (name === "node_memory_MemAvailable_bytes") memoryAvailableBytes = value;
    else {
      const counter = SUMMED[name!];
      if (counter === undefined) continue;
      if (counter === "network_bytes" && labelsOf(labelText).device === "lo") continue;
      add(counter, value);
    }
  }
  return { timestampSeconds, vcpus: cpus.size, counters, memoryTotalBytes, memoryAvailableBytes };
}

/** Scrapes a node exporter once. */
export async function scrapeNodeExporter(
  url: string,
  timeoutMs: number,
  now: () => number = () => Date.now() / 1000,
): Promise<GuestSnapshot> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new UnavailableError(`node exporter ${url}`, (error as Error).message, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new UnavailableError(`node exporter ${url}`, `HTTP ${response.status}`);
  }
  let text: string;
  try {
    text = await readCappedText(response, url, { limitBytes: NODE_EXPORTER_MAX_BYTES, limitName: "the node exporter limit" });
  } catch (error) {
    throw new UnavailableError(`node exporter ${url}`, (error as Error).message, { cause: error });
  }
  return parseNodeExporterText(text, now());
}
