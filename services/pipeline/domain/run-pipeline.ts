// One pipeline run (reference Pipeline.process for every source x feature group, offline trainer §9.1),
// as a plan carried out by named steps (steps/): query the data, list its feature groups, index the
// machine, plan the tables (pipeline-plan.ts), then per source and feature group extract the node table and
// train the AbsPower trainers, extract the container table, isolate it and train the DynPower trainers,
// each table's trainers in one Train call so one failing trainer loses no other model; finally write the
// pipeline's metadata.json, train_arguments.json, the trained-on tables and the idle profiles.
import { assertRunOptions, type PipelineRunOptions } from "./pipeline-options.js";
import type { PipelineProgress, PipelineTrainerResult, PipelinePeers } from "./pipeline-peers.js";
import { planPipeline } from "./pipeline-plan.js";
import { RunLedger } from "./run-ledger.js";
import { runTables } from "./run-tables.js";
import { runAbsPowerTable } from "./steps/abs-power-table.js";
import { runDynPowerTable } from "./steps/dyn-power-table.js";
import { createTableExtractions } from "./steps/extract-table.js";
import { prepareIdleProfiles } from "./steps/idle-profiles.js";
import { assignNodeType, type NodeTypeAssignment } from "./steps/index-machine.js";
import { listGroups } from "./steps/list-groups.js";
import { probeNewestSample } from "./steps/newest-sample.js";
import { queryData } from "./steps/query-data.js";
import type { StepContext } from "./steps/step-context.js";
import { writeMetadata } from "./steps/write-metadata.js";

export interface RunPipelineDeps {
  readonly peers: PipelinePeers;
  readonly onProgress?: (event: PipelineProgress) => void;
  readonly onResult?: (result: PipelineTrainerResult) => void;
  readonly nowSeconds?: () => number;
  /** Stops the run at the next step (a cancelled RPC, a stopped online pipeline). */
  readonly signal?: AbortSignal;
}

/** Online runs: train only when the data's newest sample is newer than this (Unix seconds). */
export interface RunGate {
  readonly newerThanSeconds: number;
}

export interface PipelineRunSummary {
  readonly pipelineName: string;
  /** The metadata.json written; empty when no model was trained (nothing written). */
  readonly metadataJson: string;
  readonly succeededCount: number;
  readonly failedCount: number;
  readonly nodeType: NodeTypeAssignment;
  readonly notices: readonly string[];
  /** Unix seconds of the newest row of the data; undefined when the data has no rows. */
  readonly newestSampleSeconds?: number;
  /** True when a gated run found no new data and trained nothing. */
  readonly skipped: boolean;
}

/** Runs the pipeline once. Request errors throw before any model is trained; later failures are reported. */
export async function runPipeline(
  options: PipelineRunOptions,
  deps: RunPipelineDeps,
  gate?: RunGate,
): Promise<PipelineRunSummary> {
  assertRunOptions(options);
  const { peers, signal } = deps;
  const context: StepContext = {
    peers,
    signal,
    emit: (stage, subject, done, total, message) => deps.onProgress?.({ stage, subject, done, total, message }),
  };
  const response = await queryData(context, options.data, "workload");
  const idleResponse = options.idleData === undefined ? undefined : await queryData(context, options.idleData, "idle");
  const targets = await listGroups(context, response, options);
  const nodeType = await assignNodeType(options, peers);
  const plan = planPipeline(options, targets, nodeType);

  const extract = createTableExtractions(context, response, options, plan.nodeType);
  const newestSampleSeconds = await probeNewestSample(plan, extract, gate !== undefined, signal);
  const summaryBase = { pipelineName: options.pipelineName, nodeType, newestSampleSeconds };
  if (gate !== undefined && (newestSampleSeconds === undefined || newestSampleSeconds <= gate.newerThanSeconds)) {
    const notices = ["no new data since the last run: nothing trained"];
    return { ...summaryBase, metadataJson: "", succeededCount: 0, failedCount: 0, notices, skipped: true };
  }

  const profiles = await prepareIdleProfiles(context, plan, options, idleResponse);
  const ledger = new RunLedger(plan, context.emit, deps.onResult);
  ledger.notices.push(...profiles.notices);
  await runTables(plan.tables, (table, say) => {
    const run = { context, ledger, say, options, plan, table };
    return table.outputType === "AbsPower"
      ? runAbsPowerTable(run, extract)
      : runDynPowerTable(run, extract, profiles.idleProfiles);
  });

  const nowSeconds = deps.nowSeconds ?? (() => Date.now() / 1000);
  const metadataJson = await writeMetadata(context, options, ledger, profiles.profileFiles, nowSeconds);
  const { succeededCount, failedCount, notices } = ledger;
  return { ...summaryBase, metadataJson, succeededCount, failedCount, notices, skipped: false };
}
