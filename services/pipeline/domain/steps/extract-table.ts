// Step "extract": a node or container table of one (source, feature group) from the extractor. Each
// extraction is made once per run: the online probe's table is the one the run then trains on.
import type { DataTable } from "../../../domain/data-table.js";
import type { EnergySource } from "../../../domain/energy-sources.js";
import type { FeatureGroupName } from "../../../domain/feature-groups.js";
import type { PipelineRunOptions } from "../pipeline-options.js";
import type { StepContext } from "./step-context.js";

/** Extracts (or returns the run's earlier extraction of) one table. */
export type ExtractTable = (
  energySource: EnergySource,
  featureGroup: FeatureGroupName,
  level: "node" | "container",
) => Promise<DataTable>;

/** The run's extractions of `response`, each made at most once. */
export function createTableExtractions(
  context: StepContext,
  response: Uint8Array,
  options: PipelineRunOptions,
  nodeType: number | undefined,
): ExtractTable {
  const extracted = new Map<string, Promise<DataTable>>();
  return (energySource, featureGroup, level) => {
    const key = `${energySource}/${featureGroup}/${level}`;
    let table = extracted.get(key);
    if (table === undefined) {
      table = context.peers.extract(
        response,
        {
          energySource,
          featureGroup,
          level,
          extractor: options.extractor,
          nodeType,
          useVmMetrics: options.useVmMetrics,
          thirdPartyMetricNames: options.thirdPartyMetricNames,
        },
        context.signal,
      );
      extracted.set(key, table);
    }
    return table;
  };
}
