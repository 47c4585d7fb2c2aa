// Step "write metadata": after a run that trained at least one model, the pipeline's metadata.json,
// train_arguments.json, the trained-on tables (preprocessed_data/) and the idle profiles (profile/), in one
// PutPipelineMetadata. A run that trained nothing writes nothing.
import type { PipelineRunOptions } from "../pipeline-options.js";
import { TRAIN_ARGUMENTS_FILE, trainArguments } from "../pipeline-files.js";
import { createPipelineMetadata } from "../pipeline-metadata.js";
import type { PipelineFileContent } from "../pipeline-peers.js";
import type { RunLedger } from "../run-ledger.js";
import type { StepContext } from "./step-context.js";

/** Writes the pipeline's files; returns the metadata.json written, or "" when nothing was. */
export async function writeMetadata(
  context: StepContext,
  options: PipelineRunOptions,
  ledger: RunLedger,
  profileFiles: readonly PipelineFileContent[],
  nowSeconds: () => number,
): Promise<string> {
  if (ledger.succeededCount === 0) {
    ledger.notices.push("no model was trained: metadata.json was not written");
    return "";
  }
  const { peers } = context;
  const previousText = await peers.readPipelineMetadata(options.pipelineName);
  const metadataJson = createPipelineMetadata({
    pipelineName: options.pipelineName,
    isolator: options.isolator,
    isolatorsUsed: ledger.isolatorsUsed,
    extractor: options.extractor,
    // Trainers that produced a model in this run, in the requested order.
    absTrainerNames: ledger.trainedNames("AbsPower", options.absTrainerNames),
    dynTrainerNames: ledger.trainedNames("DynPower", options.dynTrainerNames),
    useVmMetrics: options.useVmMetrics,
    nowSeconds: nowSeconds(),
    previousText,
  });
  const trainArgumentsText = JSON.stringify(trainArguments(options));
  await peers.writePipelineMetadata(options.pipelineName, metadataJson, [
    { path: TRAIN_ARGUMENTS_FILE, text: trainArgumentsText },
    ...profileFiles,
    ...ledger.preprocessed,
  ]);
  context.emit(
    "metadata",
    options.pipelineName,
    1,
    1,
    `wrote metadata.json, ${TRAIN_ARGUMENTS_FILE}, ${ledger.preprocessed.length} tables`,
  );
  return metadataJson;
}
