// /ui/compare/<a>/<b>: two pipelines side by side, what they were trained with, and per energy source,
// output type and feature group the best model of each (lowest held-out MAE, as selection compares) with
// its per-component errors; the better one marked. A group only one pipeline has shows "-" for the other.
import { NotFoundError } from "../../domain/errors.js";
import type { ModelCatalogue } from "../domain/model-catalogue.js";
import type { PipelineSummary } from "../domain/pipeline-state.js";
import type { StoredModel } from "../domain/stored-model.js";
import { type BrowserPage, escape, field, htmlPage, parseObject, pipelineHref, significant } from "./html.js";
import { componentErrors, modelHref } from "./model-errors.js";

const groupKey = (m: StoredModel) => `${m.location.energySource}/${m.location.outputType}/${m.location.featureGroup}`;

/** The lowest-MAE model per group of one pipeline (models without a stored MAE never win, as in selection). */
function bestPerGroup(store: ModelCatalogue, pipeline: string): Map<string, StoredModel> {
  const best = new Map<string, StoredModel>();
  for (const model of store.list()) {
    if (model.location.pipelineName !== pipeline || model.maeWatts === undefined) continue;
    const current = best.get(groupKey(model));
    if (current === undefined || model.maeWatts < current.maeWatts!) best.set(groupKey(model), model);
  }
  return best;
}

function modelCell(model: StoredModel | undefined, better: boolean): string {
  if (model === undefined) return `<td>-</td><td class="num">-</td>`;
  const components = componentErrors(model)
    .filter((e) => !e.empty)
    .map((e) => `${escape(e.component)} ${significant(e.maeWatts)}`)
    .join(", ");
  const cls = better ? ' class="better"' : "";
  return `<td${cls}><a href="${modelHref(model)}">${escape(model.location.modelName)}</a>${better ? " &#9733;" : ""}<br><small>${components}</small></td><td class="num mae${better ? " better" : ""}">${significant(model.maeWatts)}</td>`;
}

function summaryRows(a: PipelineSummary, b: PipelineSummary): string {
  const ma = parseObject(a.metadataText);
  const mb = parseObject(b.metadataText);
  const rows: Array<[string, string, string]> = [
    ["energy sources", escape(a.energySources.join(", ")), escape(b.energySources.join(", "))],
    ["models", String(a.modelCount), String(b.modelCount)],
    ["node types", String(Object.keys(a.index.toJson()).length), String(Object.keys(b.index.toJson()).length)],
    ["isolator", field(ma, "isolator"), field(mb, "isolator")],
    ["extractor", field(ma, "extractor"), field(mb, "extractor")],
    ["last trained (UTC)", field(ma, "last_update_time"), field(mb, "last_update_time")],
  ];
  return rows.map(([k, x, y]) => `<tr><th>${k}</th><td>${x}</td><td>${y}</td></tr>`).join("\n");
}

export function comparePage(store: ModelCatalogue, nameA: string, nameB: string): BrowserPage {
  const pipelines = store.pipelines();
  const a = pipelines.find((p) => p.name === nameA);
  const b = pipelines.find((p) => p.name === nameB);
  if (a === undefined) throw new NotFoundError(`pipeline ${nameA}`);
  if (b === undefined) throw new NotFoundError(`pipeline ${nameB}`);
  const bestA = bestPerGroup(store, nameA);
  const bestB = bestPerGroup(store, nameB);
  const keys = [...new Set([...bestA.keys(), ...bestB.keys()])].sort();
  let winsA = 0;
  let winsB = 0;
  const rows = keys.map((key) => {
    const x = bestA.get(key);
    const y = bestB.get(key);
    const aBetter = x !== undefined && (y === undefined || x.maeWatts! < y.maeWatts!);
    const bBetter = y !== undefined && (x === undefined || y.maeWatts! < x.maeWatts!);
    if (x !== undefined && y !== undefined) {
      if (aBetter) winsA += 1;
      if (bBetter) winsB += 1;
    }
    const difference = x !== undefined && y !== undefined ? significant(y.maeWatts! - x.maeWatts!) : "-";
    const [source, output, group] = key.split("/");
    return `<tr class="group" data-group="${escape(key)}"><td>${escape(source!)}</td><td>${escape(output!)}</td><td>${escape(group!)}</td>${modelCell(x, aBetter && y !== undefined)}${modelCell(y, bBetter && x !== undefined)}<td class="num">${difference}</td></tr>`;
  });
  const head = (p: PipelineSummary) => `<a href="${pipelineHref(p.name)}">${escape(p.name)}</a>`;
  return htmlPage(
    `Compare ${nameA} and ${nameB}`,
    `<h1>Compare ${escape(nameA)} and ${escape(nameB)}</h1>
<p><a href="/ui/compare/${encodeURIComponent(nameB)}/${encodeURIComponent(nameA)}">Swap sides</a></p>
<table class="compare-summary"><thead><tr><th></th><th>${head(a)}</th><th>${head(b)}</th></tr></thead><tbody>
${summaryRows(a, b)}
</tbody></table>
<h2>Best model per energy source, output type and feature group</h2>
<p>Held-out MAE in watts (3 significant digits; largest component, the error selection compares), per-component MAE below each model; &#9733; marks the lower. Of the ${keys.length} groups, ${escape(nameA)} is better in <b class="wins-a">${winsA}</b> and ${escape(nameB)} in <b class="wins-b">${winsB}</b>${keys.length === 0 ? "" : "; groups only one pipeline has are not counted"}.</p>
<table class="comparison"><thead><tr><th>source</th><th>output</th><th>feature group</th><th>${escape(nameA)}: model</th><th>MAE (W)</th><th>${escape(nameB)}: model</th><th>MAE (W)</th><th>${escape(nameB)} - ${escape(nameA)} (W)</th></tr></thead>
<tbody>${rows.join("\n") || '<tr><td colspan="8">Neither pipeline has a model with a stored error.</td></tr>'}</tbody></table>`,
  );
}
