// What a run has done so far: the progress counters, the results it reported, the notices, the isolator
// each table got and the tables the trainers got (written to preprocessed_data/ with metadata.json).
// Tables change it only through their `say` (step-context.ts), so it reads as if they ran in order.
import type { OutputTypeName } from "../../models/index.js";
import { failedResult, type TrainTarget } from "./failed-result.js";
import type { PipelinePlan } from "./pipeline-plan.js";
import type { IsolatorName, PipelineFileContent, PipelineTrainerResult } from "./pipeline-peers.js";
import type { EmitProgress } from "./steps/step-context.js";

/** Progress of one stage: done of total. */
export interface StageCount {
  done: number;
  readonly total: number;
}

export class RunLedger {
  readonly counts: { readonly extract: StageCount; readonly isolate: StageCount; readonly train: StageCount };
  succeededCount = 0;
  failedCount = 0;
  readonly notices: string[] = [];
  /** The isolator each "<source>/<feature group>" actually got, for metadata.json. */
  readonly isolatorsUsed: Record<string, IsolatorName> = {};
  /** The tables the trainers got, for preprocessed_data/. */
  readonly preprocessed: PipelineFileContent[] = [];
  private readonly trained: Record<OutputTypeName, Set<string>> = { AbsPower: new Set(), DynPower: new Set() };

  constructor(
    private readonly plan: PipelinePlan,
    readonly emit: EmitProgress,
    private readonly onResult?: (result: PipelineTrainerResult) => void,
  ) {
    const { totals } = plan;
    this.counts = {
      extract: { done: 0, total: totals.extract },
      isolate: { done: 0, total: totals.isolate },
      train: { done: 0, total: totals.train },
    };
  }

  /** Sends a progress event of `stage` at its current count. */
  progress(stage: "extract" | "isolate" | "train", subject: string, message: string): void {
    const count = this.counts[stage];
    this.emit(stage, subject, count.done, count.total, message);
  }

  /** Counts and reports one trainer result. */
  record(result: PipelineTrainerResult): void {
    if (result.succeeded) {
      this.succeededCount++;
      this.trained[result.outputType].add(result.trainerName);
    } else this.failedCount++;
    this.onResult?.(result);
  }

  /** The trainers that produced a model of `outputType` in this run, in `requested` order. */
  trainedNames(outputType: OutputTypeName, requested: readonly string[]): string[] {
    return requested.filter((name) => this.trained[outputType].has(name));
  }

  /** A failed result for a trainer that never got to train. */
  failedResult(trainerName: string, target: TrainTarget, reason: string): PipelineTrainerResult {
    return failedResult(trainerName, target, this.plan.nodeType, reason);
  }

  /** Fails every trainer of a table whose extraction or isolation failed. */
  failAll(trainers: readonly string[], target: TrainTarget, reason: string): void {
    for (const trainerName of trainers) {
      this.record(this.failedResult(trainerName, target, reason));
      this.counts.train.done++;
    }
    this.progress("train", `${target.energySource}/${target.featureGroup}/${target.outputType}`, `failed: ${reason}`);
  }
}
