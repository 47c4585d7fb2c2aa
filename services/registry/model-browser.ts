// The model browser: read-only HTML pages on the registry's HTTP port (`/ui`), rendered on the server
// from the same catalogue the gRPC API reads (report files through its storage), with no script and nothing fetched from elsewhere (works
// offline). /ui lists the pipelines; /ui/pipeline/<name> shows its node types and specs, the best model
// per output type and feature group, every model with MAE/MAPE per component, and the charts of the
// pipeline's stored accuracy report (`<pipeline>/report/`, written by `kepler-model report`), which
// /ui/pipeline/<name>/report/<file> serves.
import { componentsOf, type EnergySource } from "../domain/energy-sources.js";
import { NotFoundError } from "../domain/errors.js";
import { type HeldOutRecord, heldOutOf, REPORT_FOLDER } from "../models/index.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";
import { listBestModels } from "./domain/select-model.js";
import type { StoredModel } from "./domain/stored-model.js";
import { versionLine } from "../domain/build-info.js";

export interface BrowserPage {
  readonly contentType: string;
  readonly body: string | Buffer;
}

const escape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const number = (value: unknown, digits = 2) => (typeof value === "number" ? value.toFixed(digits) : "-");

function page(title: string, body: string): BrowserPage {
  return {
    contentType: "text/html; charset=utf-8",
    body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<link rel="icon" href="data:,">
<style>
body { font-family: "Liberation Sans", "DejaVu Sans", sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0 1.6em; } th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } tr.best td { background: #fff6d5; }
figure { margin: 1em 0; } figcaption { font-weight: bold; }
</style></head>
<body><p><a href="/ui">All pipelines</a></p>
${body}
<footer class="version">${escape(versionLine())}</footer>
</body></html>
`,
  };
}

function pipelinesPage(store: ModelCatalogue): BrowserPage {
  const rows = store.pipelines().map((pipeline) => {
    const metadata = parseObject(pipeline.metadataText);
    return `<tr class="pipeline" data-pipeline="${escape(pipeline.name)}"><td><a href="/ui/pipeline/${encodeURIComponent(pipeline.name)}">${escape(pipeline.name)}</a></td>
<td>${escape(pipeline.energySources.join(", "))}</td><td class="num">${pipeline.modelCount}</td><td class="num">${Object.keys(pipeline.index.toJson()).length}</td>
<td>${escape(String(metadata.isolator ?? "-"))}</td><td>${escape(String(metadata.last_update_time ?? "-"))}</td></tr>`;
  });
  return page(
    "Kepler power models",
    `<h1>Kepler power models</h1>
<table class="pipelines"><thead><tr><th>pipeline</th><th>energy sources</th><th>models</th><th>node types</th><th>isolator</th><th>last trained (UTC)</th></tr></thead>
<tbody>${rows.join("\n")}</tbody></table>`,
  );
}

function parseObject(text: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

// One component's error: held-out (exact) when the model stores it, else the reference's rounded keys. A
// component measured at 0 W throughout (core, uncore on many machines) has no error to show: MAPE -1 means no
// positive power, and a 0 W MAE there only says 0 was predicted for 0.
function componentError(model: StoredModel, component: string, heldOut: HeldOutRecord | undefined): string {
  const exact = heldOut?.components.find((c) => c.component === component);
  const mae = exact?.maeWatts ?? model.metadata[`${component}_mae`];
  const mape = exact?.mapePercent ?? model.metadata[`${component}_mape`];
  const noPower = typeof mape !== "number" || mape < 0;
  if (noPower && (typeof mae !== "number" || mae === 0)) return `${escape(component)} n/a (no power measured)`;
  return `${escape(component)} ${number(mae)} W / ${noPower ? "n/a" : `${number(mape)} %`}`;
}

function modelRow(model: StoredModel, best: boolean): string {
  const l = model.location;
  const heldOut = heldOutOf(model.metadata);
  const components = componentsOf(l.energySource as EnergySource).filter(
    (c) => `${c}_mae` in model.metadata || heldOut?.components.some((h) => h.component === c) === true,
  );
  const errors = components.map((c) => componentError(model, c, heldOut)).join("<br>");
  return `<tr class="model${best ? " best" : ""}" data-model="${escape(l.modelName)}" data-group="${escape(l.featureGroup)}" data-source="${escape(l.energySource)}" data-output="${l.outputType}">
<td>${escape(l.energySource)}</td><td>${l.outputType}</td><td>${escape(l.featureGroup)}</td><td>${escape(l.modelName)}${best ? " &#9733;" : ""}</td>
<td>${escape(model.trainerName)}</td><td class="num">${model.nodeType}</td><td class="num mae">${number(model.maeWatts)}</td><td>${errors}</td></tr>`;
}

async function reportFiles(store: ModelCatalogue, pipelineName: string): Promise<string[]> {
  try {
    return (await store.listPipelineFiles(pipelineName, REPORT_FOLDER)).filter((name) => /^[\w.-]+$/.test(name));
  } catch {
    return [];
  }
}

async function pipelinePage(store: ModelCatalogue, name: string): Promise<BrowserPage> {
  const pipeline = store.pipelines().find((p) => p.name === name);
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
  const files = await reportFiles(store, name);
  const base = `/ui/pipeline/${encodeURIComponent(name)}/${REPORT_FOLDER}`;
  const charts = files
    .filter((file) => file.endsWith(".svg"))
    .map(
      (file) =>
        `<figure class="chart"><figcaption>${escape(file.replace(/\.svg$/, ""))}</figcaption><img src="${base}/${encodeURIComponent(file)}" alt="${escape(file)}"></figure>`,
    );
  const report = files.includes("report.html")
    ? `<p><a class="report" href="${base}/report.html">Full accuracy report</a></p>`
    : `<p>No stored report: <code>kepler-model report --pipeline ${escape(name)} --input &lt;recording&gt;</code> writes one.</p>`;
  const metadata = parseObject(pipeline.metadataText);
  return page(
    `Pipeline ${name}`,
    `<h1>Pipeline ${escape(name)}</h1>
<p>Isolator ${escape(String(metadata.isolator ?? "-"))}, extractor ${escape(String(metadata.extractor ?? "-"))}, ${escape(String(metadata.metric_type ?? "-"))}, last trained ${escape(String(metadata.last_update_time ?? "-"))} UTC.</p>
<h2>Node types</h2>
<table class="node-types"><thead><tr><th>node type</th><th>machine spec</th><th>machines</th></tr></thead><tbody>${nodeTypes.join("\n") || '<tr><td colspan="3">none indexed (node type 0)</td></tr>'}</tbody></table>
<h2>Models</h2>
<p>&#9733; marks the best model per energy source, output type and feature group (lowest held-out MAE, as GET /best-models and selection). Errors are on each model's held-out test rows.</p>
<table class="models"><thead><tr><th>source</th><th>output</th><th>feature group</th><th>model</th><th>trainer</th><th>node type</th><th>held-out MAE (W)</th><th>MAE / MAPE per component</th></tr></thead>
<tbody>${models.map((m) => modelRow(m, best.has(m))).join("\n")}</tbody></table>
<h2>Accuracy report</h2>
${report}
${charts.join("\n")}`,
  );
}

const CONTENT_TYPES: Record<string, string> = {
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".html": "text/html; charset=utf-8",
};

async function reportFile(store: ModelCatalogue, name: string, file: string): Promise<BrowserPage> {
  const type = CONTENT_TYPES[file.slice(file.lastIndexOf("."))];
  if (type === undefined || !/^[\w.-]+$/.test(file) || file.startsWith(".")) throw new NotFoundError(`report file ${file}`);
  const body = await store.readPipelineFile(name, `${REPORT_FOLDER}/${file}`).catch(() => undefined);
  if (body === undefined) throw new NotFoundError(`report file ${file} of pipeline ${name}`);
  return { contentType: type, body };
}

/** The page for a /ui path; NotFoundError for anything else. */
export async function modelBrowserPage(store: ModelCatalogue, path: string): Promise<BrowserPage> {
  if (path === "/ui" || path === "/ui/") return pipelinesPage(store);
  let parts: string[];
  try {
    parts = path.split("/").slice(2).map(decodeURIComponent);
  } catch {
    throw new NotFoundError(`page ${path}`);
  }
  if (parts[0] === "pipeline" && parts.length === 2) return pipelinePage(store, parts[1]!);
  if (parts[0] === "pipeline" && parts.length === 4 && parts[2] === REPORT_FOLDER) return reportFile(store, parts[1]!, parts[3]!);
  throw new NotFoundError(`page ${path}`);
}
