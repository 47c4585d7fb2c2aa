// The reference's per-metric CSVs (`query --to-csv`): pandas' `to_csv` of `prom_responses_to_results`,
// one long table per metric. Columns: pandas' unnamed row index, the label columns in order of first
// appearance, `timestamp`, and a column named after the metric holding float(value).
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SavedResponse } from "../services/prometheus/query-window.js";
import type { RangeSeries } from "../services/prometheus/prometheus-client.js";
import { writeTextFile } from "./write-text-file.js";

// CSV quoting as Python's csv module does by default (QUOTE_MINIMAL).
function cell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

// Python's repr of a float: integral values keep ".0"; NaN and infinities as pandas writes them.
function pythonFloat(text: string): string {
  const value = Number(text);
  if (Number.isNaN(value)) return "";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  return Number.isInteger(value) && Math.abs(value) < 1e16 ? value.toFixed(1) : String(value);
}

/** One metric's series as the reference's CSV text, one piece per series (streamed to its file). */
function* metricCsvPieces(metric: string, series: readonly RangeSeries[]): Generator<string> {
  const labels: string[] = [];
  const seen = new Set<string>();
  for (const s of series)
    for (const label of Object.keys(s.metric))
      if (!seen.has(label)) {
        seen.add(label);
        labels.push(label);
      }
  yield `${["", ...labels, "timestamp", metric].map(cell).join(",")}\n`;
  let row = 0;
  for (const s of series) {
    const labelCells = labels.map((label) => cell(s.metric[label] ?? "")).join(",");
    let piece = "";
    for (const [timestamp, value] of s.values) {
      piece += `${row},${labelCells === "" ? "" : `${labelCells},`}${timestamp},${pythonFloat(value)}\n`;
      row += 1;
    }
    yield piece;
  }
}

/** Writes `<dir>/<metric>.csv` for every metric of the response; returns the file count. */
export async function writeQueryCsvs(dir: string, saved: SavedResponse): Promise<number> {
  await mkdir(dir, { recursive: true });
  const metrics = Object.keys(saved);
  for (const metric of metrics) await writeTextFile(join(dir, `${metric}.csv`), metricCsvPieces(metric, saved[metric] ?? []));
  return metrics.length;
}
