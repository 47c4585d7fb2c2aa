// The estimator's own metrics: rows estimated, the model serving each (source, output type), the model
// cache, and whether the registry is reachable (the kit adds per-RPC and socket request metrics).
import { gauge, tallyCounter } from "../kit/observe/metrics.js";
import type { EstimateResult } from "./domain/estimate-power.js";
import type { RegistryProvenance } from "./registry-model-source.js";
import { outputTypeFromProto } from "../kit/transport/output-type-codec.js";

const rows = tallyCounter("kepler_model_estimator_rows_total", "Rows estimated, by energy source, output type and interface.", [
  "source",
  "output_type",
  "via",
]);
const modelInfo = gauge("kepler_model_estimator_model_info", "The model serving each energy source and output type (value 1).", [
  "source",
  "output_type",
  "pipeline",
  "feature_group",
  "model",
]);
const cacheEventTally = tallyCounter(
  "kepler_model_estimator_model_cache_total",
  "Model cache lookups by result: hit, miss (loaded), reload (a publish made the entry stale).",
  ["result"],
);
/** Counts one model cache lookup by its result (the model cache's observer). */
export const cacheEvents = {
  hit: cacheEventTally.bind({ result: "hit" }),
  miss: cacheEventTally.bind({ result: "miss" }),
  reload: cacheEventTally.bind({ result: "reload" }),
};
const registryUp = gauge("kepler_model_estimator_registry_reachable", "1 while the registry answers, else 0.", []);

// One adder per (source, output type, interface).
const rowCounters = new Map<string, (value?: number) => void>();

// The labels last set per source and output type, so a switch removes the old model's series.
const serving = new Map<string, Record<string, string>>();

// What a model's estimates update, worked out once per loaded model and interface (estimates are hot).
interface ModelMeters {
  countRows: (value?: number) => void;
  servingKey: string;
  labels: Record<string, string>;
}
const modelMeters = { grpc: new WeakMap<object, ModelMeters>(), socket: new WeakMap<object, ModelMeters>() };

function metersOf(model: EstimateResult<RegistryProvenance>["model"], via: "grpc" | "socket"): ModelMeters {
  let meters = modelMeters[via].get(model);
  if (meters !== undefined) return meters;
  const location = model.provenance.location;
  const source = location?.energySource ?? "";
  const outputType = location === undefined ? "" : (outputTypeFromProto(location.outputType) ?? "");
  const servingKey = `${source}/${outputType}`;
  let countRows = rowCounters.get(`${servingKey}/${via}`);
  if (countRows === undefined) {
    countRows = rows.bind({ source, output_type: outputType, via });
    rowCounters.set(`${servingKey}/${via}`, countRows);
  }
  const labels = {
    source,
    output_type: outputType,
    pipeline: location?.pipelineName ?? "",
    feature_group: model.featureGroup,
    model: model.modelName,
  };
  meters = { countRows, servingKey, labels };
  modelMeters[via].set(model, meters);
  return meters;
}

/** Counts an estimate's rows and records the model that served it; returns the result. */
export function observeEstimate<R extends EstimateResult<RegistryProvenance>>(result: R, via: "grpc" | "socket"): R {
  const { countRows, servingKey, labels } = metersOf(result.model, via);
  countRows(result.rowCount);
  const before = serving.get(servingKey);
  if (before === labels) return result;
  if (
    before === undefined ||
    before.model !== labels.model ||
    before.pipeline !== labels.pipeline ||
    before.feature_group !== labels.feature_group
  ) {
    if (before !== undefined) modelInfo.remove(before);
    modelInfo.set(labels, 1);
  }
  serving.set(servingKey, labels);
  return result;
}

/** Records whether the registry answers. */
export function observeRegistryReachable(reachable: boolean): void {
  registryUp.set(reachable ? 1 : 0);
}
