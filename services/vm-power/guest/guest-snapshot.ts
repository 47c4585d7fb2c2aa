// One reading of a guest's counters (what guest-counters.ts' series are made of), from /proc
// (proc-counters.ts) or a node exporter (node-exporter-counters.ts).
import type { GuestCounterName } from "./guest-counters.js";

export interface GuestSnapshot {
  timestampSeconds: number;
  vcpus: number;
  counters: Partial<Record<GuestCounterName, number>>;
  memoryTotalBytes: number;
  memoryAvailableBytes: number;
}
