// Runs the plan's tables: up to TABLES_SIDE_BY_SIDE at once (extractions, isolations and Train calls
// overlap), every effect a table has on the run replayed in table order (ordered-lanes.ts), so the run
// reports exactly what running the tables one by one would. A DynPower table the trainer isolator needs
// this run's AbsPower models for waits for its AbsPower table.
import { createOrderedLanes, runWindowed } from "./ordered-lanes.js";
import type { TablePlan } from "./pipeline-plan.js";
import type { Say } from "./steps/step-context.js";

/** Tables worked on at once: enough to overlap extraction, fits and publishing; few enough to bound memory. */
const TABLES_SIDE_BY_SIDE = 4;

/** Runs one table, its effects through `say`. */
export type RunTable = (table: TablePlan, say: Say) => Promise<void>;

/** Runs every table; rejects with the first table's failure (a cancelled run) once all settled. */
export async function runTables(tables: readonly TablePlan[], runTable: RunTable): Promise<void> {
  const finished = tables.map(() => {
    let markDone = () => {};
    const promise = new Promise<void>((resolve) => (markDone = resolve));
    return { promise, markDone };
  });
  const lanes = createOrderedLanes(tables.length);
  await runWindowed(
    tables.map((table, lane) => async () => {
      try {
        if (table.waitsFor !== undefined) await finished[table.waitsFor]!.promise;
        await runTable(table, (effect) => lanes.report(lane, effect));
      } finally {
        finished[lane]!.markDone();
        lanes.finish(lane);
      }
    }),
    TABLES_SIDE_BY_SIDE,
  );
}
