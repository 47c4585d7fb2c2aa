// The report as one self-contained HTML file: the charts inlined as SVG (nothing fetched at view time),
// the data summary, every model's MAE/MAPE per component on the scored rows with the chosen model marked,
// and the chosen model's prediction intervals.
import type { ReportData, ReportModel, SourceReport } from "./collect-report.js";
import { significant } from "../../services/domain/significant-digits.js";
import type { RenderedChart } from "./report-charts.js";

const escape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** Watts and percents as the report shows them: 3 significant digits (the exact values are in `evaluate --json`). */
const formatWatts = (value: number) => significant(value);
const formatPercent = (value: number) => (value < 0 ? "-" : significant(value));
const utc = (seconds: number) => new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19);

// Components measured at 0 W throughout (`hidden`) have no error worth a row.
function modelRows(models: readonly ReportModel[], hidden: readonly string[]): string {
  return models
    .flatMap((model) =>
      model.components
        .filter((c) => !hidden.includes(c.component))
        .map(
          (
            c,
            i,
          ) => `<tr class="model${model.chosen ? " chosen" : ""}" data-model="${escape(model.modelName)}" data-group="${escape(model.featureGroup)}">
<td>${i === 0 ? escape(model.featureGroup) : ""}</td><td>${i === 0 ? `${escape(model.modelName)}${model.chosen ? " &#9733;" : ""}` : ""}</td>
<td>${escape(c.component)}</td><td class="num">${model.rowCount} ${model.scoredRows}</td><td class="num mae" data-watts="${c.maeWatts}">${formatWatts(c.maeWatts)}</td>
<td class="num">${formatPercent(c.mapePercent)}</td><td class="num">${formatWatts(c.maxErrorWatts)}</td></tr>`,
        ),
    )
    .join("\n");
}

const SCORED: Record<ReportModel["scoredRows"], string> = {
  "held-out": "each model's held-out test rows of this recording (stored with the model, never used to fit it)",
  "other-recording": "every row of a recording the models were not trained on",
  "in-sample": "every row of the recording, training rows included (in-sample: optimistic)",
};

// The chosen model's intervals per component: half width, rows inside, and what that coverage means.
function intervalTable(source: SourceReport, level: number): string {
  const chosen = source.series[0];
  if (chosen === undefined || chosen.intervals.size === 0)
    return `<p>No prediction intervals: the chosen model stores no calibration residuals.</p>`;
  const rows = [...chosen.intervals]
    .filter(([component]) => !source.emptyComponents.includes(component))
    .map(
      ([component, i]) =>
        `<tr><td>${escape(component)}</td><td class="num">${formatWatts(i.halfWidthWatts)}</td><td class="num">${i.calibrationRows}</td><td class="num">${i.coveredRows} of ${i.lowerWatts.length}</td></tr>`,
    );
  const note =
    chosen.model.scoredRows === "other-recording"
      ? "rows the calibration never saw"
      : "the calibration's own rows (held-out) or training rows (in-sample), so not an honest coverage estimate: see <code>npm run bench -- intervals</code>";
  return `<p>${Math.round(level * 100)} % prediction intervals of ${escape(chosen.model.modelName)} (split conformal from its held-out residuals); coverage here is on ${note}.</p>
<table class="intervals"><thead><tr><th>component</th><th>half width (W)</th><th>calibration rows</th><th>measured inside</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table>`;
}

function summary(data: ReportData): string {
  const m = data.metadata;
  const rows: Array<[string, string]> = [
    ["pipeline", data.pipelineName],
    ["recording", data.input],
    [
      "time window (UTC)",
      data.windowSeconds === undefined ? "-" : `${utc(data.windowSeconds[0])} to ${utc(data.windowSeconds[1])}`,
    ],
    ["valid feature groups of the recording", data.validFeatureGroups.join(", ") || "none"],
    ["isolator", typeof m.isolator === "string" ? m.isolator : "-"],
    ["extractor", typeof m.extractor === "string" ? m.extractor : "default"],
    ["metric type", typeof m.metric_type === "string" ? m.metric_type : "-"],
    ["last trained", typeof m.last_update_time === "string" ? `${m.last_update_time} UTC` : "-"],
  ];
  for (const node of data.nodeTypes)
    rows.push([`node type ${node.nodeType}`, `${JSON.stringify(node.spec)}; machines: ${JSON.stringify(node.members)}`]);
  if (data.nodeTypes.length === 0) rows.push(["node types", "none indexed (node type 0)"]);
  for (const source of data.sources) {
    rows.push([
      `${source.energySource} idle power`,
      source.idle.map((idle) => `${idle.component} ${formatWatts(idle.watts)} W (${idle.from})`).join(", "),
    ]);
    const first = source.models[0];
    rows.push([
      `${source.energySource} rows scored`,
      first === undefined ? "0" : `${first.rowCount}: ${SCORED[first.scoredRows]}`,
    ]);
  }
  return `<table class="summary">${rows.map(([k, v]) => `<tr><th>${escape(k)}</th><td>${escape(v)}</td></tr>`).join("\n")}</table>`;
}

/** The report page. `charts` are inlined in source order. */
export function renderReportHtml(data: ReportData, charts: readonly RenderedChart[]): string {
  const sections = data.sources
    .map((source) => {
      const own = charts.filter((chart) => chart.name.endsWith(`-${source.energySource}`));
      const chosen = source.models.find((model) => model.chosen);
      return `<section class="source" id="source-${escape(source.energySource)}">
<h2>${escape(source.energySource)}</h2>
<p>Chosen model (lowest ${escape(chosen?.scoredRows ?? "")} MAE${chosen?.scoredRows === "held-out" ? ", the error the registry's selection compares" : ""}): <b>${escape(chosen?.featureGroup ?? "")}/${escape(chosen?.modelName ?? "")}</b>, MAE ${formatWatts(chosen?.maeWatts ?? Number.NaN)} W.</p>
<p>Numbers to 3 significant digits; <code>kepler-model evaluate --json</code> prints them exactly.</p>
<table class="models"><thead><tr><th>feature group</th><th>model</th><th>component</th><th>rows</th><th>MAE (W)</th><th>MAPE (%)</th><th>max error (W)</th></tr></thead>
<tbody>
${modelRows(source.models, source.emptyComponents)}
</tbody></table>
${source.emptyComponents.length === 0 ? "" : `<p class="empty-components">Left out of the table and the charts, measured at 0 W on every scored row: ${escape(source.emptyComponents.join(", "))}.</p>`}
${intervalTable(source, data.intervalLevel)}
${own.map((chart) => `<figure class="chart" id="chart-${escape(chart.name)}"><figcaption>${escape(chart.title)}</figcaption>\n${chart.svg}\n</figure>`).join("\n")}
</section>`;
    })
    .join("\n");
  const skipped =
    data.skipped.length === 0
      ? ""
      : `<h2>Not evaluated</h2><ul>${data.skipped.map((s) => `<li>${escape(s.where)}/${escape(s.modelName)}: ${escape(s.reason)}</li>`).join("")}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Accuracy report: ${escape(data.pipelineName)}</title>
<style>
body { font-family: "Liberation Sans", "DejaVu Sans", sans-serif; margin: 2em; color: #222; max-width: 1100px; }
table { border-collapse: collapse; margin: 1em 0; } th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } tr.chosen td { background: #fff6d5; }
figure { margin: 1.5em 0; } figcaption { font-weight: bold; margin-bottom: 0.4em; }
</style></head>
<body>
<h1>Accuracy report: ${escape(data.pipelineName)}</h1>
<p>Every AbsPower model of the pipeline applied to the recording (the numbers <code>kepler-model evaluate</code> prints), scored on ${escape(SCORED[data.sources[0]?.models[0]?.scoredRows ?? "held-out"])}; the charts show each trainer's best model.</p>
${summary(data)}
${sections}
${skipped}
</body></html>
`;
}
