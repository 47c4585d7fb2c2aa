// An AbsPower table: extract the node table, keep it for preprocessed_data/, train the AbsPower trainers.
// A failed extraction fails this table's trainers only.
import { tableToCsv } from "../../../domain/table-csv.js";
import { absTablePath } from "../pipeline-files.js";
import type { ExtractTable } from "./extract-table.js";
import { type TableRun, attempt, targetOf } from "./table-run.js";
import { trainTable } from "./train-table.js";

/** Runs the steps of one AbsPower table. */
export async function runAbsPowerTable(run: TableRun, extract: ExtractTable): Promise<void> {
  const { ledger, say, options, table } = run;
  const { energySource, featureGroup } = table;
  const subject = `${energySource}/${featureGroup}`;
  run.context.signal?.throwIfAborted();
  say(() => ledger.progress("extract", `${subject}/node`, "extracting the node table"));
  const nodeTable = await attempt(run, () => extract(energySource, featureGroup, "node"));
  if (nodeTable instanceof Error) {
    say(() => {
      ledger.counts.extract.done++;
      ledger.notices.push(`${subject}: no AbsPower table: ${nodeTable.message}`);
      ledger.failAll(table.trainerNames, targetOf(table), `extract: ${nodeTable.message}`);
    });
    return;
  }
  const text = tableToCsv(nodeTable);
  say(() => {
    ledger.counts.extract.done++;
    ledger.progress("extract", `${subject}/node`, `${nodeTable.rowCount} rows`);
    ledger.preprocessed.push({ path: absTablePath(options.extractor, energySource, featureGroup), text });
  });
  await trainTable(run, nodeTable);
}
