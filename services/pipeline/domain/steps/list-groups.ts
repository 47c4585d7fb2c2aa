// Step "list groups": what the data holds (the extractor's ListValidFeatureGroups), and from it the energy
// sources and feature groups the run trains.
import type { EnergySource } from "../../../domain/energy-sources.js";
import type { FeatureGroupName } from "../../../domain/feature-groups.js";
import type { PipelineRunOptions } from "../pipeline-options.js";
import { resolveEnergySources, resolveFeatureGroups } from "../resolve-targets.js";
import type { StepContext } from "./step-context.js";

/** The sources and feature groups a run trains. */
export interface RunTargets {
  readonly sources: readonly EnergySource[];
  readonly groups: readonly FeatureGroupName[];
}

/** The requested sources and groups checked against the data, or the data's own. */
export async function listGroups(context: StepContext, response: Uint8Array, options: PipelineRunOptions): Promise<RunTargets> {
  const overview = await context.peers.describeData(
    response,
    { useVmMetrics: options.useVmMetrics, thirdPartyMetricNames: options.thirdPartyMetricNames },
    context.signal,
  );
  return {
    sources: resolveEnergySources(options.energySources, overview, "options.energy_sources"),
    groups: resolveFeatureGroups(options.featureGroups, overview, "options.feature_groups"),
  };
}
