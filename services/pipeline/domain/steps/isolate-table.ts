// Step "isolate": a container table's dynamic power, by the run's isolator (the isolator service).
import type { DataTable } from "../../../domain/data-table.js";
import type { IdleProfileSet, IsolatedTable } from "../pipeline-peers.js";
import type { TableRun } from "./table-run.js";

/** Isolates the table's container rows with the run's isolator and idle profiles. */
export function isolateTable(
  run: TableRun,
  containers: DataTable,
  idleProfiles: IdleProfileSet | undefined,
): Promise<IsolatedTable> {
  const { context, options, plan, table } = run;
  return context.peers.isolate(
    containers,
    {
      isolator: options.isolator,
      energySource: table.energySource,
      nodeType: plan.nodeType,
      targetHints: options.targetHints,
      backgroundHints: options.backgroundHints,
      absPipelineName: options.absPipelineName,
      idleProfiles,
    },
    context.signal,
  );
}
