// Feature rows as a Kepler v0.9 collector sends them to Estimate, taken from a golden extraction table
// (per-second rates of a recorded run): one column per named metric, zeros for the ones the table lacks.
import { readGoldenCsv } from "./extractor-fixtures.js";

/** What a Kepler v0.9 collector sends as `metrics` (kepler-collector §1.3), perf counters and eBPF alike. */
export const COLLECTOR_METRICS = [
  "cpu_cycles",
  "cpu_instructions",
  "cache_miss",
  "cpu_ref_cycles",
  "bpf_cpu_time_ms",
  "bpf_net_tx_irq",
  "bpf_net_rx_irq",
  "bpf_block_irq",
  "bpf_page_cache_hit",
];

export interface CollectorRows {
  readonly rowCount: number;
  /** Row-major values, `metrics.length` per row. */
  readonly values: Float64Array;
  /** The metrics the table has no column for (sent as unavailable). */
  readonly unavailable: string[];
  /** A column of the table as numbers (features and `<component>_power` alike). */
  column(name: string): number[];
}

export function collectorRows(goldenCsv: string, metrics: readonly string[]): CollectorRows {
  const table = readGoldenCsv(goldenCsv);
  const column = (name: string) => table.rows.map((row) => Number(row[table.header.indexOf(name)]));
  const present = metrics.filter((name) => table.header.includes(name));
  const values = new Float64Array(table.rows.length * metrics.length);
  metrics.forEach((name, j) => {
    if (!present.includes(name)) return;
    column(name).forEach((value, i) => {
      values[i * metrics.length + j] = value;
    });
  });
  return { rowCount: table.rows.length, values, unavailable: metrics.filter((name) => !present.includes(name)), column };
}
