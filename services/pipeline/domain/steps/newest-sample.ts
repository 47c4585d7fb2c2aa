// Step "newest sample": when the data's newest sample was taken, read from the first table the run needs
// anyway. An online run trains only when it is newer than the last run's.
import type { DataTable } from "../../../domain/data-table.js";
import type { PipelinePlan } from "../pipeline-plan.js";
import type { ExtractTable } from "./extract-table.js";

/**
 * Unix seconds of the newest row that holds a new sample: the last row differing from the row before it.
 * Prometheus repeats a series' last sample at later grid points (up to its lookback delta), which the
 * extraction turns into identical all-zero-rate rows; those trailing rows hold no new data. Undefined
 * when the table has no rows.
 */
export function newestSampleRowSeconds(table: DataTable): number | undefined {
  const { rowCount, columnNames, values, timestamps } = table;
  if (rowCount === 0) return undefined;
  for (let row = rowCount - 1; row > 0; row--) {
    for (let column = 0; column < columnNames.length; column++) {
      const offset = column * rowCount + row;
      if (!Object.is(values[offset], values[offset - 1])) return timestamps[row];
    }
  }
  return timestamps[0];
}

/**
 * The newest sample of the plan's first table; undefined when the data has no rows or (for a run that
 * is not gated) the extraction failed: the table's own step then reports that failure.
 */
export async function probeNewestSample(
  plan: PipelinePlan,
  extract: ExtractTable,
  gated: boolean,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const probe = await extract(plan.sources[0]!, plan.groups[0]!, plan.probeLevel).catch((error: unknown) => {
    if (gated || signal?.aborted) throw error;
    return undefined;
  });
  return probe === undefined ? undefined : newestSampleRowSeconds(probe);
}
