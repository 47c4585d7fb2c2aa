// Which pipeline serves a request that names none, and the machine spec a model was trained on.
import type { NodeSpec, NodeTypeIndex } from "../../node-types/index.js";
import type { StoredModel } from "./stored-model.js";

/**
 * The pipelines a selection that names no pipeline searches: the one pinned for the source by
 * --source-pipelines, else every pipeline holding models of the source, by name.
 */
export function pipelinesToSearch(
  models: readonly StoredModel[],
  energySource: string,
  sourcePipelines: Readonly<Record<string, string>> | undefined,
): string[] {
  const configured = sourcePipelines?.[energySource];
  if (configured !== undefined) return [configured];
  const names = new Set(models.filter((m) => m.location.energySource === energySource).map((m) => m.location.pipelineName));
  return [...names].sort();
}

/**
 * The one pipeline MatchMachineSpec uses when a request names none: the configured one, else the
 * pipeline holding the most recently published model of that source (the reference took whichever
 * pipeline os.listdir listed last; docs/deviations.md).
 */
export function pipelineForSource(
  models: readonly StoredModel[],
  energySource: string,
  sourcePipelines: Readonly<Record<string, string>> | undefined,
): string | undefined {
  const configured = sourcePipelines?.[energySource];
  if (configured !== undefined) return configured;
  let best: { name: string; time: number } | undefined;
  for (const model of models) {
    if (model.location.energySource !== energySource) continue;
    const candidate = { name: model.location.pipelineName, time: model.publishedTimeSeconds };
    if (best === undefined || candidate.time > best.time || (candidate.time === best.time && candidate.name > best.name))
      best = candidate;
  }
  return best?.name;
}

/** The machine spec recorded for a model: its metadata's machine_spec, else its node type's attributes in `index`. */
export function machineSpecOf(model: StoredModel, index: NodeTypeIndex | undefined): NodeSpec | undefined {
  const own = model.metadata.machine_spec;
  if (typeof own === "object" && own !== null) {
    const spec = own as Record<string, unknown>;
    return {
      processor: typeof spec.processor === "string" ? spec.processor : null,
      cores: typeof spec.cores === "number" ? spec.cores : null,
      chips: typeof spec.chips === "number" ? spec.chips : null,
      memory: typeof spec.memory === "number" ? spec.memory : null,
      frequency: typeof spec.frequency === "number" ? spec.frequency : null,
    };
  }
  return index?.get(model.nodeType)?.spec;
}
