// /ui: the pipelines, with links to compare any two; an empty registry says how to get models into it.
import type { ModelCatalogue } from "../domain/model-catalogue.js";
import { type BrowserPage, escape, field, htmlPage, parseObject, pipelineHref } from "./html.js";

/** What to do when a registry holds no model: train, import, or point the registry at another folder. */
const EMPTY_REGISTRY = `<div class="empty" id="no-pipelines"><p><b>No pipelines yet.</b> This registry holds no model. To add some:</p>
<ul>
<li>train on a recording of Kepler's metrics: <code>npx kepler-model pipeline run --pipeline my-nodes --input response.json</code></li>
<li>import a published pipeline: <code>npx kepler-model models import ec2-0.7.11.zip</code></li>
<li>or start the registry on a folder that has models: <code>--model-path &lt;dir&gt;</code> (<code>npm start</code> trains a default pipeline on the bundled recording)</li>
</ul><p>Then reload this page.</p></div>`;

/** Links to the comparison of `name` with every other pipeline. */
export function compareLinks(name: string, others: readonly string[]): string {
  if (others.length === 0) return "";
  const links = others.map(
    (other) =>
      `<a class="compare" href="/ui/compare/${encodeURIComponent(name)}/${encodeURIComponent(other)}">${escape(other)}</a>`,
  );
  return `<nav class="compare">Compare with: ${links.join(" ")}</nav>`;
}

export function pipelinesPage(store: ModelCatalogue): BrowserPage {
  const pipelines = store.pipelines();
  if (pipelines.length === 0) return htmlPage("Kepler power models", `<h1>Kepler power models</h1>\n${EMPTY_REGISTRY}`);
  const names = pipelines.map((p) => p.name);
  const rows = pipelines.map((pipeline) => {
    const metadata = parseObject(pipeline.metadataText);
    const others = names.filter((other) => other !== pipeline.name);
    return `<tr class="pipeline" data-pipeline="${escape(pipeline.name)}"><td><a href="${pipelineHref(pipeline.name)}">${escape(pipeline.name)}</a></td>
<td>${escape(pipeline.energySources.join(", "))}</td><td class="num">${pipeline.modelCount}</td><td class="num">${Object.keys(pipeline.index.toJson()).length}</td>
<td>${field(metadata, "isolator")}</td><td>${field(metadata, "last_update_time")}</td><td>${compareLinks(pipeline.name, others) || "-"}</td></tr>`;
  });
  return htmlPage(
    "Kepler power models",
    `<h1>Kepler power models</h1>
<p>Open a pipeline for its models, their errors and its accuracy report; open a model for its coefficients or trees and its per-row predictions.</p>
<table class="pipelines"><thead><tr><th>pipeline</th><th>energy sources</th><th>models</th><th>node types</th><th>isolator</th><th>last trained (UTC)</th><th>compare</th></tr></thead>
<tbody>${rows.join("\n")}</tbody></table>`,
  );
}
