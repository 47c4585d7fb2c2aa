// The pipeline service's own metrics: runs by kind and outcome (an online run with no new data is
// "skipped") and their duration, models trained per outcome (the kit adds per-RPC metrics; the trainer's
// and extractor's calls are measured where they are served).
import { counter, histogram } from "../kit/metrics.js";
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
