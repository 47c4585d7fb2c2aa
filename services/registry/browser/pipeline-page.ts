// /ui/pipeline/<name>: node types and specs, every model with its errors (the best per output type and
// feature group marked, each linking to its model page), comparison links, and the stored report's charts
// in a fixed order with captions. Components measured at 0 W throughout are left out and named once.
import { NotFoundError } from "../../domain/errors.js";
import { REPORT_FOLDER } from "../../models/index.js";
import type { ModelCatalogue } from "../domain/model-catalogue.js";
import { listBestModels } from "../domain/select-model.js";
import type { StoredModel } from "../domain/stored-model.js";
import { type BrowserPage, escape, htmlPage, parseObject, pipelineHref, significant } from "./html.js";
import { componentErrors, modelHref, nodeTypeText } from "./model-errors.js";
import { compareLinks } from "./pipelines-page.js";

/** The report's chart kinds (file `<kind>-<source>.svg`), in page order, with what each shows. */
const CHART_KINDS: ReadonlyArray<readonly [string, string]> = [
  ["mae", "MAE per trainer and component (each trainer's best model)"],
  ["power", "predicted vs measured power over time"],
  ["intervals", "prediction intervals of the chosen model"],
  ["residual", "error against load (predicted - measured)"],
  ["distribution", "error distribution (predicted - measured)"],
];

/** How the pipeline was trained, from its metadata.json; `kepler-model train` alone writes none. */
function trainedWith(metadata: Record<string, unknown>): string {
  const facts = [
    ["isolator", metadata.isolator],
    ["extractor", metadata.extractor],
    ["metric type", metadata.metric_type],
    ["last trained (UTC)", metadata.last_update_time],
  ].filter(([, value]) => value !== undefined);
  if (facts.length === 0) return "<p>No pipeline metadata.json (models trained with <code>kepler-model train</code>).</p>";
  return `<p>${facts.map(([key, value]) => `${escape(String(key))} ${escape(String(value))}`).join(", ")}.</p>`;
}

function modelRow(model: StoredModel, best: boolean): string {
  const l = model.location;
  const errors = componentErrors(model)
    .filter((e) => !e.empty)
    .map(
      (e) =>
        `${escape(e.component)} ${significant(e.maeWatts)} W / ${e.mapePercent === undefined ? "n/a" : `${significant(e.mapePercent)} %`}`,
    )
    .join("<br>");
  return `<tr class="model${best ? " best" : ""}" data-model="${escape(l.modelName)}" data-group="${escape(l.featureGroup)}" data-source="${escape(l.energySource)}" data-output="${l.outputType}">
<td>${escape(l.energySource)}</td><td>${l.outputType}</td><td>${escape(l.featureGroup)}</td><td><a href="${modelHref(model)}">${escape(l.modelName)}</a>${best ? " &#9733;" : ""}</td>
<td>${escape(model.trainerName)}</td><td class="num">${nodeTypeText(model.nodeType)}</td><td class="num mae">${significant(model.maeWatts)}</td><td>${errors || "n/a (no power measured)"}</td></tr>`;
}

async function reportFiles(store: ModelCatalogue, pipelineName: string): Promise<string[]> {
  try {
    return (await store.listPipelineFiles(pipelineName, REPORT_FOLDER)).filter((name) => /^[\w.-]+$/.test(name));
  } catch {
    return [];
  }
}

/** The report's SVG charts ordered by source, then kind (CHART_KINDS), each with a caption. */
function orderedCharts(files: readonly string[]): Array<{ file: string; caption: string }> {
  const charts = files.flatMap((file) => {
    const match = /^([a-z]+)-(.+)\.svg$/.exec(file);
    const kind = CHART_KINDS.findIndex(([name]) => name === match?.[1]);
    if (match === null || kind < 0) return [];
    return [{ file, source: match[2]!, kind, caption: `${match[2]}: ${CHART_KINDS[kind]![1]}` }];
  });
  charts.sort((a, b) => a.source.localeCompare(b.source) || a.kind - b.kind);
  return charts.map(({ file, caption }) => ({ file, caption }));
}

export async function pipelinePage(store: ModelCatalogue, name: string): Promise<BrowserPage> {
  const pipelines = store.pipelines();
  const pipeline = pipelines.find((p) => p.name === name);
  if (pipeline === undefined) throw new NotFoundError(`pipeline ${name}`);
  const models = store.list().filter((m) => m.location.pipelineName === name);
  const best = new Set<StoredModel>();
  for (const source of pipeline.energySources) {
    for (const entry of listBestModels(store, { energySource: source, pipelineName: name })) best.add(entry.model);
  }
  const nodeTypes = Object.entries(pipeline.index.toJson()).map(
    ([nodeType, entry]) =>
      `<tr class="node-type"><td class="num">${escape(nodeType)}</td><td>${Object.entries(entry.attrs)
        .map(([key, value]) => `${escape(key)}: ${escape(String(value))}`)
        .join(", ")}</td><td>${escape(entry.members.join(", "))}</td></tr>`,
  );
  const emptyComponents = new Set(
    models.flatMap((m) =>
      componentErrors(m)
        .filter((e) => e.empty)
        .map((e) => e.component),
    ),
  );
  for (const m of models) for (const e of componentErrors(m)) if (!e.empty) emptyComponents.delete(e.component);
  const files = await reportFiles(store, name);
  const base = `${pipelineHref(name)}/${REPORT_FOLDER}`;
  const charts = orderedCharts(files).map(
    ({ file, caption }) =>
      `<figure class="chart"><figcaption>${escape(caption)}</figcaption><img src="${base}/${encodeURIComponent(file)}" alt="${escape(caption)}"></figure>`,
  );
  const report = files.includes("report.html")
    ? `<p><a class="report" href="${base}/report.html">Full accuracy report</a> (every model's errors per component, prediction intervals, the data summary).</p>`
    : `<div class="empty" id="no-report"><p>No stored accuracy report. <code>npx kepler-model report --pipeline ${escape(name)} --input &lt;recording&gt;</code> writes one here (charts, per-row predictions of every model); reload this page after.</p></div>`;
  const metadata = parseObject(pipeline.metadataText);
  const others = pipelines.map((p) => p.name).filter((other) => other !== name);
  const modelTable =
    models.length === 0
      ? `<div class="empty" id="no-models"><p>This pipeline holds no model yet: train one with <code>npx kepler-model pipeline run --pipeline ${escape(name)} --input &lt;recording&gt;</code>.</p></div>`
      : `<p>&#9733; marks the best model per energy source, output type and feature group (lowest held-out MAE, as GET /best-models and selection). Errors are on each model's held-out test rows, to 3 significant digits.${
          emptyComponents.size === 0
            ? ""
            : ` Left out, measured at 0 W throughout: <span class="empty-components">${escape([...emptyComponents].join(", "))}</span>.`
        }</p>
<table class="models"><thead><tr><th>source</th><th>output</th><th>feature group</th><th>model</th><th>trainer</th><th>node type</th><th>held-out MAE (W)</th><th>MAE / MAPE per component</th></tr></thead>
<tbody>${models.map((m) => modelRow(m, best.has(m))).join("\n")}</tbody></table>`;
  return htmlPage(
    `Pipeline ${name}`,
    `<h1>Pipeline ${escape(name)}</h1>
${trainedWith(metadata)}
${compareLinks(name, others)}
<h2>Node types</h2>
<table class="node-types"><thead><tr><th>node type</th><th>machine spec</th><th>machines</th></tr></thead><tbody>${nodeTypes.join("\n") || '<tr><td colspan="3">none indexed (node type 0)</td></tr>'}</tbody></table>
<h2>Models</h2>
${modelTable}
<h2>Accuracy report</h2>
${report}
${charts.join("\n")}`,
  );
}
