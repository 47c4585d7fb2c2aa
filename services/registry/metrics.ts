// The registry's own metrics: models stored per pipeline, source, output type and feature group (read
// from the store at scrape time), model events (publish, import, removal) and selection failures by
// status (the kit adds per-RPC and per-HTTP-route metrics).
import { counter, gauge } from "../kit/observe/metrics.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";

const stores = new Set<ModelCatalogue>();

gauge(
  "kepler_model_registry_models",
  "Models stored, by pipeline, energy source, output type and feature group.",
  ["pipeline", "source", "output_type", "feature_group"],
  function collect() {
    this.reset();
    for (const store of stores) {
      for (const model of store.list()) {
        const l = model.location;
        this.inc({ pipeline: l.pipelineName, source: l.energySource, output_type: l.outputType, feature_group: l.featureGroup });
      }
    }
  },
);
const events = counter("kepler_model_registry_model_events_total", "Model events: published, imported, removed.", ["kind"]);
const selectionFailures = counter(
  "kepler_model_registry_selection_failures_total",
  "SelectModel, POST /model and ListBestModels calls that found no model, by reason (status code).",
  ["reason"],
);

/** Measures a store until its hub closes. */
export function measureStore(store: ModelCatalogue): void {
  stores.add(store);
  store.events.subscribe(
    (event) => events.inc({ kind: event.kind }),
    () => stores.delete(store),
  );
}

const selections = counter(
  "kepler_model_registry_selections_total",
  "Models selected (SelectModel, POST /model), by protocol, how the node type was chosen (requested, exact, cover, similarity, none), the pipeline and node type chosen, and whether the model was trained for it.",
  ["protocol", "match_kind", "pipeline", "node_type", "model_matches_node_type"],
);

/** Counts a successful selection and how its node type was chosen. */
export function observeSelection(
  protocol: "grpc" | "http",
  selection: { nodeTypeMatch: { kind: string; pipelineName: string; nodeType: number }; modelMatchesNodeType: boolean },
): void {
  const match = selection.nodeTypeMatch;
  selections.inc({
    protocol,
    match_kind: match.kind,
    pipeline: match.pipelineName,
    node_type: String(match.nodeType),
    model_matches_node_type: String(selection.modelMatchesNodeType),
  });
}

/** Counts a failed selection. */
export function observeSelectionFailure(reason: string): void {
  selectionFailures.inc({ reason });
}

const exports = counter("kepler_model_registry_exports_total", "Pipelines exported (ExportPipeline).", []);

/** Counts an exported pipeline. */
export function observeExport(): void {
  exports.inc();
}

const storeReachable = gauge(
  "kepler_model_registry_store_reachable",
  "1 when the last poll of the shared model store (--model-store) succeeded, 0 when it failed; absent without one.",
  ["store"],
);
const storePulls = counter(
  "kepler_model_registry_store_pulls_total",
  "Polls of the shared model store, by outcome (ok, failed).",
  ["store", "outcome"],
);

/** Records one poll of the shared model store. */
export function observeStorePull(store: string, ok: boolean): void {
  storeReachable.set({ store }, ok ? 1 : 0);
  storePulls.inc({ store, outcome: ok ? "ok" : "failed" });
}
