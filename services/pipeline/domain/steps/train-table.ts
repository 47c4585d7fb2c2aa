// Step "train": all trainers of a table in one Train call. The trainer service fits them side by side on
// its worker threads and reports (and publishes) in trainer order, so progress reads as if they ran one
// after the other. A call that fails as a whole is retried per trainer, so only the trainer at fault fails.
import type { DataTable } from "../../../domain/data-table.js";
import type { PipelineTrainerResult } from "../pipeline-peers.js";
import { describeError } from "./step-context.js";
import { type TableRun, targetOf } from "./table-run.js";

const NO_RESULT = "no result from the trainer service";

/** Trains the table's trainers on `data`; every trainer ends with a result (a failed one if need be). */
export async function trainTable(run: TableRun, data: DataTable): Promise<void> {
  const { context, ledger, say, options, plan, table } = run;
  const trainers = table.trainerNames;
  if (trainers.length === 0) return;
  const { signal } = context;
  signal?.throwIfAborted();
  const target = targetOf(table);
  const subjectOf = (trainerName: string) => `${target.energySource}/${target.featureGroup}/${target.outputType}/${trainerName}`;
  // A trainer counts as done at its first result (one per node type follows in node type order).
  const done = new Set<string>();
  // Progress as if the trainers ran one after the other (results come in trainer order): "training" for
  // the next one once the one before is done.
  const announced = new Set<string>();
  const announceNext = () => {
    const next = trainers.find((name) => !done.has(name));
    if (next === undefined || announced.has(next)) return;
    announced.add(next);
    say(() => ledger.progress("train", subjectOf(next), `training ${next}`));
  };
  const finished = (trainerName: string, failures: readonly string[]) => {
    done.add(trainerName);
    const message = failures.length === 0 ? `trained ${trainerName}` : `failed: ${failures.join("; ")}`;
    say(() => {
      ledger.counts.train.done++;
      ledger.progress("train", subjectOf(trainerName), message);
    });
    announceNext();
  };
  announceNext();
  const onResult = (result: PipelineTrainerResult) => {
    say(() => {
      ledger.record(result);
      if (result.published) {
        const model = `${target.energySource}/${target.featureGroup}/${target.outputType}/${result.modelName}`;
        const { done: trainedCount, total } = ledger.counts.train;
        ledger.emit("publish", model, trainedCount, total, `published ${result.modelName}`);
      }
    });
    if (!done.has(result.trainerName)) finished(result.trainerName, result.succeeded ? [] : [result.failureReason]);
  };
  const train = (trainerNames: readonly string[]) =>
    context.peers.train(
      data,
      {
        ...target,
        pipelineName: options.pipelineName,
        trainerNames,
        nodeType: plan.nodeType,
        machineSpec: options.machine?.spec,
        seed: options.seed,
        featureNames: table.featureNames,
        continueFromCheckpoint: options.continueFromCheckpoint === true,
      },
      onResult,
      signal,
    );
  // Trainers a call did not get to fail with its reason (or none given).
  const failRest = (trainerNames: readonly string[], reason: string) => {
    for (const trainerName of trainerNames) {
      if (done.has(trainerName)) continue;
      const failed = ledger.failedResult(trainerName, target, reason);
      say(() => ledger.record(failed));
      finished(trainerName, [reason]);
    }
  };
  try {
    await train(trainers);
    failRest(trainers, NO_RESULT);
  } catch (error) {
    if (signal?.aborted) throw error;
    if (trainers.length === 1) {
      failRest(trainers, describeError(error));
      return;
    }
    // The call failed as a whole (e.g. the trainer service refuses one trainer's name): each trainer it
    // did not finish gets a call of its own, so only the one at fault fails.
    for (const trainerName of trainers.filter((name) => !done.has(name))) {
      signal?.throwIfAborted();
      try {
        await train([trainerName]);
        failRest([trainerName], NO_RESULT);
      } catch (single) {
        if (signal?.aborted) throw single;
        failRest([trainerName], describeError(single));
      }
    }
  }
}
