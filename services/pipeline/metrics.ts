// The pipeline service's own metrics: runs by kind and outcome (an online run with no new data is
// "skipped") and their duration, models trained per outcome, and per stage (each peer call: query,
// extract, isolate, train, ...) its duration and the rows in and out, per trainer its duration (the kit
// adds per-RPC metrics, on every service).
import { counter, histogram } from "../kit/observe/metrics.js";
import type { PipelinePeers } from "./domain/pipeline-peers.js";
import type { PipelineRunSummary } from "./domain/run-pipeline.js";

const runs = counter("kepler_model_pipeline_runs_total", "Pipeline runs by kind (once, online) and outcome.", [
  "kind",
  "outcome",
]);
const duration = histogram("kepler_model_pipeline_run_duration_seconds", "Pipeline run duration in seconds.", ["kind"]);
const models = counter("kepler_model_pipeline_models_total", "Models trained by pipeline runs, by outcome.", ["outcome"]);

/** Runs `work` (one pipeline run) and records its outcome and duration. */
export async function measuredRun(kind: "once" | "online", work: () => Promise<PipelineRunSummary>): Promise<PipelineRunSummary> {
  const started = performance.now();
  try {
    const summary = await work();
    runs.inc({ kind, outcome: summary.skipped ? "skipped" : summary.failedCount > 0 ? "partial" : "succeeded" });
    models.inc({ outcome: "succeeded" }, summary.succeededCount);
    models.inc({ outcome: "failed" }, summary.failedCount);
    return summary;
  } catch (error) {
    runs.inc({ kind, outcome: "failed" });
    throw error;
  } finally {
    duration.observe({ kind }, (performance.now() - started) / 1000);
  }
}

const stageDuration = histogram(
  "kepler_model_pipeline_stage_duration_seconds",
  "Duration of each pipeline stage call in seconds.",
  ["stage"],
);
const stageRows = counter(
  "kepler_model_pipeline_stage_rows_total",
  "Table rows into and out of the extract, isolate and train stages.",
  ["stage", "direction"],
);
const trainerDuration = histogram(
  "kepler_model_pipeline_trainer_duration_seconds",
  "Seconds from the start of a Train call to this trainer's first model (the trainers of a table share the call).",
  ["trainer"],
);

async function timed<T>(stage: string, work: () => Promise<T>, extra?: (seconds: number) => void): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const seconds = (performance.now() - started) / 1000;
    stageDuration.observe({ stage }, seconds);
    extra?.(seconds);
  }
}

/** The peers with every stage call measured. */
export function measuredPeers(peers: PipelinePeers): PipelinePeers {
  return {
    ...peers,
    queryPrometheus: (window, signal) => timed("query", () => peers.queryPrometheus(window, signal)),
    describeData: (response, options, signal) => timed("describe", () => peers.describeData(response, options, signal)),
    extract: (response, spec, signal) =>
      timed("extract", async () => {
        const table = await peers.extract(response, spec, signal);
        stageRows.inc({ stage: "extract", direction: "out" }, table.rowCount);
        return table;
      }),
    buildIdleProfiles: (idle, options, signal) => timed("profile", () => peers.buildIdleProfiles(idle, options, signal)),
    isolate: (table, spec, signal) =>
      timed("isolate", async () => {
        stageRows.inc({ stage: "isolate", direction: "in" }, table.rowCount);
        const isolated = await peers.isolate(table, spec, signal);
        stageRows.inc({ stage: "isolate", direction: "out" }, isolated.table.rowCount);
        return isolated;
      }),
    train: (table, spec, onResult, signal) =>
      timed("train", () => {
        stageRows.inc({ stage: "train", direction: "in" }, table.rowCount);
        // A trainer's duration: from the call's start to its first result (its fits run beside the others').
        const started = performance.now();
        const seen = new Set<string>();
        return peers.train(
          table,
          spec,
          (result) => {
            if (!seen.has(result.trainerName)) {
              seen.add(result.trainerName);
              trainerDuration.observe({ trainer: result.trainerName }, (performance.now() - started) / 1000);
            }
            onResult(result);
          },
          signal,
        );
      }),
    writePipelineMetadata: (name, metadata, files) => timed("metadata", () => peers.writePipelineMetadata(name, metadata, files)),
  };
}
