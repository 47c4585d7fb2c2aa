// A default training that did not finish (the process killed or stopped mid-way) leaves some of the default
// models published and the pipeline without metadata.json, which RunPipeline writes last, after every
// model. Left alone, the registry would no longer be empty and the next start would never train the rest:
// such a pipeline is recognised here and its models removed, so the training runs again from scratch.
import { createZip } from "../models/index.js";
import type { createRegistryClient } from "../registry/client.js";

type RegistryClient = ReturnType<typeof createRegistryClient>["client"];

/**
 * Removes the models of an unfinished default training and returns how many there were (0 when there is
 * none). It is unfinished when `pipelineName` is the only pipeline holding models and has no metadata.json:
 * the default training only starts on an empty registry, and a finished one always writes metadata.json.
 * The removal is a forced replace-import of an empty archive (ImportPipeline), through the registry's client.
 */
export async function removeUnfinishedDefaultTraining(
  registry: RegistryClient,
  pipelineName: string,
  signal?: AbortSignal,
): Promise<number> {
  const { pipelines } = await registry.listPipelineMetadata({ pipelineNames: [] }, { signal });
  const holding = pipelines.filter((pipeline) => pipeline.modelCount > 0);
  const only = holding.length === 1 ? holding[0] : undefined;
  if (only === undefined || only.pipelineName !== pipelineName || only.metadataJson !== "") return 0;
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
