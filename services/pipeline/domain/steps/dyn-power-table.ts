// A DynPower table: extract the container table, isolate it, keep the isolated table for
// preprocessed_data/, train the DynPower trainers. A failed extraction or isolation fails this table's
// trainers only.
import { tableToCsv } from "../../../domain/table-csv.js";
import type { IdleProfileSet } from "../pipeline-peers.js";
import { dynTablePath } from "../pipeline-files.js";
import type { ExtractTable } from "./extract-table.js";
import { isolateTable } from "./isolate-table.js";
import { type TableRun, attempt, targetOf } from "./table-run.js";
import { trainTable } from "./train-table.js";

/** Runs the steps of one DynPower table. */
export async function runDynPowerTable(
  run: TableRun,
  extract: ExtractTable,
  idleProfiles: IdleProfileSet | undefined,
): Promise<void> {
  const { ledger, say, options, table } = run;
  const { energySource, featureGroup } = table;
  const subject = `${energySource}/${featureGroup}`;
  // The table's trainers fail with the step that failed and why.
  const fail = (step: "extract" | "isolate", error: Error) => {
    ledger.notices.push(`${subject}: no DynPower table: ${error.message}`);
    ledger.failAll(table.trainerNames, targetOf(table), `${step}: ${error.message}`);
  };
  run.context.signal?.throwIfAborted();
  say(() => ledger.progress("extract", `${subject}/container`, "extracting the container table"));
  const containers = await attempt(run, () => extract(energySource, featureGroup, "container"));
  if (containers instanceof Error) {
    say(() => {
      ledger.counts.extract.done++;
      fail("extract", containers);
    });
    return;
  }
  say(() => {
    ledger.counts.extract.done++;
    ledger.progress("extract", `${subject}/container`, `${containers.rowCount} rows`);
    ledger.progress("isolate", subject, `isolating with ${options.isolator}`);
  });
  const isolated = await attempt(run, () => isolateTable(run, containers, idleProfiles));
  if (isolated instanceof Error) {
    say(() => {
      ledger.counts.isolate.done++;
      fail("isolate", isolated);
    });
    return;
  }
  const text = tableToCsv(isolated.table);
  say(() => {
    ledger.counts.isolate.done++;
    for (const notice of isolated.notices) ledger.notices.push(`${subject}: ${notice}`);
    ledger.isolatorsUsed[subject] = isolated.isolator;
    ledger.progress("isolate", subject, `${isolated.table.rowCount} rows (${isolated.isolator})`);
    ledger.preprocessed.push({ path: dynTablePath(options.extractor, options.isolator, energySource, featureGroup), text });
  });
  await trainTable(run, isolated.table);
}
