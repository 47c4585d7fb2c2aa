// /ui/pipeline/<p>/model/<source>/<output>/<group>/<model>: one model's metadata, errors per component, what
// it learned (coefficients or a trees summary, from the archive the registry serves) and a link to its
// per-row held-out predictions as CSV (written by `kepler-model report` into the pipeline's report folder).
import { componentsOf, type EnergySource } from "../../domain/energy-sources.js";
import { NotFoundError } from "../../domain/errors.js";
import {
  heldOutOf,
  type ModelLocation,
  isOutputTypeName,
  type OutputTypeName,
  readComponentModels,
  readZip,
  REPORT_FOLDER,
  reportPredictionsFile,
} from "../../models/index.js";
import type { ModelCatalogue } from "../domain/model-catalogue.js";
import type { StoredModel } from "../domain/stored-model.js";
import { type BrowserPage, escape, htmlPage, pipelineHref, significant } from "./html.js";
import { componentErrors, nodeTypeText } from "./model-errors.js";
import { componentStructure } from "./model-structure.js";

// Components measured at 0 W throughout (`hidden`) learned nothing worth a table.
async function structure(store: ModelCatalogue, model: StoredModel, hidden: readonly string[]): Promise<string> {
  if (model.format === "weights")
    return `<p>Kepler's linear weights (weight.json): the estimator multiplies each normalized feature by its weight.</p>
<pre class="weights">${escape(JSON.stringify(JSON.parse(model.weightJson ?? "{}"), null, 2))}</pre>`;
  try {
    const entries = readZip(await store.readArchive(model), "archive", store.zipLimits);
    const order = componentsOf(model.location.energySource as EnergySource);
    const { features, scaler, components } = readComponentModels(entries, order);
    return components
      .filter(([component]) => !hidden.includes(component))
      .map(
        ([component, file]) =>
          `<h3 class="component">${escape(component)}</h3>\n${componentStructure(file, features, scaler.scale)}`,
      )
      .join("\n");
  } catch (error) {
    return `<p>The archive's model files cannot be read here: ${escape(error instanceof Error ? error.message : String(error))}.</p>`;
  }
}

async function predictionsLink(store: ModelCatalogue, model: StoredModel): Promise<string> {
  const l = model.location;
  const file = reportPredictionsFile(l);
  const stored =
    l.outputType === "AbsPower" &&
    (await store.listPipelineFiles(l.pipelineName, REPORT_FOLDER).catch((): string[] => [])).includes(file);
  if (stored)
    return `<p><a class="predictions" download="${escape(file)}" href="${pipelineHref(l.pipelineName)}/${REPORT_FOLDER}/${encodeURIComponent(file)}">Per-row predictions (CSV)</a>: each held-out row's time with the measured and predicted watts per component, as scored by the pipeline's accuracy report.</p>`;
  return `<div class="empty" id="no-predictions"><p>No per-row predictions stored for this model. ${
    l.outputType === "AbsPower"
      ? `<code>npx kepler-model report --pipeline ${escape(l.pipelineName)} --input &lt;recording&gt;</code> writes them (with the report); reload this page after.`
      : "The accuracy report scores AbsPower models only."
  }</p></div>`;
}

export async function modelPage(store: ModelCatalogue, location: ModelLocation): Promise<BrowserPage> {
  const model = store.get(location);
  const l = model.location;
  const heldOut = heldOutOf(model.metadata);
  const errors = componentErrors(model);
  const shown = errors.filter((e) => !e.empty);
  const hidden = errors.filter((e) => e.empty).map((e) => e.component);
  const facts: Array<[string, string]> = [
    ["pipeline", `<a href="${pipelineHref(l.pipelineName)}">${escape(l.pipelineName)}</a>`],
    ["energy source, output, feature group", `${escape(l.energySource)}, ${l.outputType}, ${escape(l.featureGroup)}`],
    ["trainer", escape(model.trainerName)],
    ["node type", nodeTypeText(model.nodeType)],
    ["features", escape(model.features.join(", "))],
    ["held-out rows", heldOut === undefined ? "not stored (an older or imported archive)" : String(heldOut.rowCount)],
    ["held-out MAE (largest component)", `${significant(model.maeWatts)} W`],
    ["trained by", escape(String(model.metadata.trained_by_version ?? "not recorded"))],
  ];
  return htmlPage(
    `Model ${l.modelName} (${l.pipelineName})`,
    `<h1>Model ${escape(l.modelName)}</h1>
<table class="facts">${facts.map(([k, v]) => `<tr><th>${escape(k)}</th><td>${v}</td></tr>`).join("\n")}</table>
<h2>Errors per component</h2>
<table class="errors"><thead><tr><th>component</th><th>MAE (W)</th><th>MAPE (%)</th></tr></thead><tbody>
${shown.map((e) => `<tr class="component-error"><td>${escape(e.component)}</td><td class="num">${significant(e.maeWatts)}</td><td class="num">${e.mapePercent === undefined ? "n/a" : significant(e.mapePercent)}</td></tr>`).join("\n")}
</tbody></table>
${hidden.length === 0 ? "" : `<p>Left out, measured at 0 W throughout: ${escape(hidden.join(", "))}.</p>`}
<h2>Per-row predictions</h2>
${await predictionsLink(store, model)}
<h2>What the model learned</h2>
${await structure(store, model, hidden)}`,
  );
}

/** A page path's output type; NotFoundError for anything else. */
export function parseOutputType(text: string): OutputTypeName {
  if (!isOutputTypeName(text)) throw new NotFoundError(`output type ${text}`);
  return text;
}
