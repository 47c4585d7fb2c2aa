// A default training that did not finish (the process killed or stopped mid-way) leaves some of the default
// models published and the pipeline without metadata.json, which RunPipeline writes last, after every
// model. Left alone, the registry would no longer be empty and the next start would never train the rest:
// such a pipeline is recognised here and its models removed, so the training runs again from scratch.
import { createZip } from "../models/index.js";
import type { createRegistryClient } from "../registry/client.js";

type RegistryClient = ReturnType<typeof createRegistryClient>["client"];

/** What the default training trains: its pipeline, energy sources and trainers. */
export interface DefaultTrainingShape {
  readonly pipelineName: string;
  readonly energySources: readonly string[];
  readonly trainerNames: readonly string[];
}

/**
 * Removes the models of an unfinished default training and returns how many there were (0 when there is
 * none). It is unfinished when the default pipeline is the only pipeline holding models, has no
 * metadata.json, and holds only models of the default sources and trainers: the default training only
 * starts on an empty registry, and a finished one always writes metadata.json. The removal is a forced
 * replace-import of an empty archive (ImportPipeline), through the registry's client.
 */
export async function removeUnfinishedDefaultTraining(
  registry: RegistryClient,
  shape: DefaultTrainingShape,
  signal?: AbortSignal,
): Promise<number> {
  const { pipelineName } = shape;
  const { pipelines } = await registry.listPipelineMetadata({ pipelineNames: [] }, { signal });
  const holding = pipelines.filter((pipeline) => pipeline.modelCount > 0);
  const only = holding.length === 1 ? holding[0] : undefined;
  if (only === undefined || only.pipelineName !== pipelineName || only.metadataJson !== "") return 0;
  const { models } = await registry.listModels({ pipelineName }, { signal });
  const isDefaultModel = (m: (typeof models)[number]) =>
    shape.energySources.includes(m.location?.energySource ?? "") && shape.trainerNames.includes(m.trainerName);
  if (models.length !== only.modelCount || !models.every(isDefaultModel)) return 0;
  const emptyArchive = createZip([]);
  await registry.importPipeline(
    (async function* () {
      yield { content: { $case: "header" as const, value: { pipelineName, serverPath: "", replace: true, force: true } } };
      yield { content: { $case: "archiveChunk" as const, value: emptyArchive } };
    })(),
    { signal },
  );
  return only.modelCount;
}
