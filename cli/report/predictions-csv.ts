// One model's per-row predictions as CSV: each scored row's time (UTC and Unix seconds) and, per component,
// the measured and the predicted watts at full precision. The registry's model page links to the file.
import type { ModelPredictions } from "./collect-report.js";

export function predictionsCsv({ timestamps, predictions }: ModelPredictions): string {
  const header = [
    "time_utc",
    "timestamp",
    ...predictions.flatMap((p) => [`${p.component}_measured_watts`, `${p.component}_predicted_watts`]),
  ];
  const lines = [header.join(",")];
  timestamps.forEach((t, i) => {
    const cells = [new Date(t * 1000).toISOString(), String(t)];
    for (const p of predictions) cells.push(String(p.measured[i]), String(p.predicted[i]));
    lines.push(cells.join(","));
  });
  return `${lines.join("\n")}\n`;
}
