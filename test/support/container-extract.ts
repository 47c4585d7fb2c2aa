// The isolator tests' input: a recorded response extracted per container, as the pipeline hands it over.
import type { EnergySource } from "../../services/domain/energy-sources.js";
import type { FeatureGroupName } from "../../services/domain/feature-groups.js";
import type { PrometheusResponse } from "../../services/domain/prometheus-response.js";
import { type ExtractResult, extract } from "../../services/extractor/domain/extract.js";

/** `response` extracted at container level with the default extractor (CounterOnly unless told). */
export function containerExtract(
  response: PrometheusResponse,
  energySource: EnergySource,
  featureGroup: FeatureGroupName = "CounterOnly",
): ExtractResult {
  return extract(response, { energySource, featureGroup, level: "container", extractor: "default" });
}
