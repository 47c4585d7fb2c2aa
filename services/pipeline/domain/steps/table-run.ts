// What the steps of one table share: the run's context, its ledger, the table's `say` (its effects in
// table order), the run's options and plan.
import type { PipelineRunOptions } from "../pipeline-options.js";
import type { PipelinePlan, TablePlan } from "../pipeline-plan.js";
import type { RunLedger } from "../run-ledger.js";
import type { TrainTarget } from "../failed-result.js";
import type { Say, StepContext } from "./step-context.js";

export interface TableRun {
  readonly context: StepContext;
  readonly ledger: RunLedger;
  readonly say: Say;
  readonly options: PipelineRunOptions;
  readonly plan: PipelinePlan;
  readonly table: TablePlan;
}

/** What the table's trainers train for. */
export function targetOf(table: TablePlan): TrainTarget {
  return { energySource: table.energySource, featureGroup: table.featureGroup, outputType: table.outputType };
}

/**
 * Runs a step that may fail for this table only: its error comes back as a value (the table's trainers then
 * fail); a cancelled run stops.
 */
export async function attempt<T>(run: TableRun, step: () => Promise<T>): Promise<T | Error> {
  try {
    return await step();
  } catch (error) {
    if (run.context.signal?.aborted) throw error;
    return error instanceof Error ? error : new Error(String(error));
  }
}
