// `kepler-model evaluate`'s text output: one line per model and component, the best model per source and
// output type, and what the scored rows are (held-out, another recording, or in-sample).
import type { ModelEvaluation, SkippedModel } from "./model-evaluation.js";
import { formatTextTable } from "../text-table.js";

const watts = (value: number) => value.toFixed(4);

/** The table, the best models and the skipped ones, as text. */
export function renderText(evaluations: readonly ModelEvaluation[], skipped: readonly SkippedModel[]): string {
  const rows = evaluations.flatMap((e) =>
    e.components.map((c) => [
      e.energySource,
      e.outputType,
      e.featureGroup,
      e.modelName,
      c.component,
      `${e.rowCount} ${e.scoredRows}`,
      watts(c.maeWatts),
      c.mapePercent < 0 ? "-" : c.mapePercent.toFixed(4),
      watts(c.maxErrorWatts),
    ]),
  );
  const lines = [
    formatTextTable(["source", "output", "feature_group", "model", "component", "rows", "mae_w", "mape_pct", "max_err_w"], rows),
  ];
  if (evaluations.length > 0 || skipped.length > 0) lines.push("\n");
  const best = new Map<string, ModelEvaluation>();
  for (const e of evaluations)
    if (!best.has(`${e.energySource} ${e.outputType}`)) best.set(`${e.energySource} ${e.outputType}`, e);
  for (const [key, e] of best)
    lines.push(`best ${key}: ${e.featureGroup}/${e.modelName} (${e.scoredRows} MAE ${watts(e.maeWatts)} W)\n`);
  for (const s of skipped)
    lines.push(`skipped ${s.energySource} ${s.outputType} ${s.featureGroup}/${s.modelName}: ${s.reason}\n`);
  return lines.join("");
}

/** What the scored rows were, once per kind present (in-sample errors are optimistic: training rows count). */
export function scoredRowsNotices(evaluations: readonly ModelEvaluation[]): string[] {
  const kinds = new Set(evaluations.map((e) => e.scoredRows));
  const notices: string[] = [];
  if (kinds.has("held-out"))
    notices.push("held-out: scored on each model's stored test rows of this recording (never used to fit it)");
  if (kinds.has("other-recording"))
    notices.push("other-recording: the recording holds none of the models' stored test rows; every row is scored");
  if (kinds.has("in-sample"))
    notices.push("in-sample: every row scored, the models' training rows included; these errors are optimistic");
  return notices;
}
