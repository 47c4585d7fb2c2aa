// The pipeline-level files the reference's `kepler-model train` leaves beside metadata.json (§6.1):
// `train_arguments.json` (the run's arguments) and the extracted / isolated tables in
// `preprocessed_data/`, named as the reference names them.
import type { PipelineData, PipelineRunOptions } from "./pipeline-options.js";

export const TRAIN_ARGUMENTS_FILE = "train_arguments.json";

/** `preprocessed_data/preprocess_abs_<extractor>_<source>_<FG>.csv`, the AbsPower (node) table. */
export function absTablePath(extractor: string, energySource: string, featureGroup: string): string {
  return `preprocessed_data/preprocess_abs_${extractor}_${energySource}_${featureGroup}.csv`;
}

/** `preprocessed_data/preprocess_dyn_<extractor>_<isolator>_<source>_<FG>.csv`, the isolated table. */
export function dynTablePath(extractor: string, isolator: string, energySource: string, featureGroup: string): string {
  return `preprocessed_data/preprocess_dyn_${extractor}_${isolator}_${energySource}_${featureGroup}.csv`;
}

/** Where the data came from: the Prometheus window, or "inline" (the bytes themselves are not kept). */
function describeInput(data: PipelineData | undefined): unknown {
  if (data === undefined) return null;
  if (data.kind === "inline") return "inline";
  return {
    base_url: data.window.baseUrl,
    start_time: data.window.startTimeSeconds,
    end_time: data.window.endTimeSeconds,
    step_seconds: data.window.stepSeconds,
    metric_prefix: data.window.metricPrefix,
  };
}

/**
 * The run's arguments in the reference's `train` flag names where one exists (vars(argparse)):
 * lists stay JSON arrays instead of the reference's comma-joined strings.
 */
export function trainArguments(options: PipelineRunOptions): Record<string, unknown> {
  return {
    input: describeInput(options.data),
    idle_input: describeInput(options.idleData),
    pipeline_name: options.pipelineName,
    extractor: options.extractor,
    isolator: options.isolator,
    target_hints: options.targetHints,
    bg_hints: options.backgroundHints,
    abs_pipeline_name: options.absPipelineName,
    energy_source: options.energySources,
    feature_groups: options.featureGroups,
    abs_trainers: options.absTrainerNames,
    dyn_trainers: options.dynTrainerNames,
    id: options.machine?.machineId ?? null,
    machine_spec: options.machine?.spec ?? null,
    node_type: options.nodeType ?? null,
    seed: options.seed,
    vm_train: options.useVmMetrics,
    third_party_metrics: options.thirdPartyMetricNames,
  };
}

/**
 * Splits the files into batches of at most `maxBytes` UTF-8 bytes each (a larger file goes alone), in
 * order; no files gives one empty batch, so metadata.json is still written once.
 */
export function batchFiles<T extends { readonly text: string }>(files: readonly T[], maxBytes: number): T[][] {
  const batches: T[][] = [[]];
  let size = 0;
  for (const file of files) {
    const bytes = Buffer.byteLength(file.text, "utf8");
    const current = batches.at(-1)!;
    if (current.length > 0 && size + bytes > maxBytes) {
      batches.push([file]);
      size = bytes;
    } else {
      current.push(file);
      size += bytes;
    }
  }
  return batches;
}
