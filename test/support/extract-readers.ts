// How the extractor's domain tests read the hand-made responses (extract-responses.ts) and what extract
// makes of them: the node-level options, the parse, one column of the table, the InvalidInputError thrown.
import { InvalidInputError } from "../../services/domain/errors.js";
import { type PrometheusResponse, parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { type ExtractOptions, extract } from "../../services/extractor/domain/extract.js";

export const NODE: ExtractOptions = { energySource: "acpi", featureGroup: "BPFOnly", level: "node", extractor: "default" };
export const parse = (document: unknown): PrometheusResponse => parsePrometheusResponse(JSON.stringify(document));
export const column = (result: ReturnType<typeof extract>, name: string) => {
  const index = result.table.columnNames.indexOf(name);
  return Array.from(result.table.values.subarray(index * result.table.rowCount, (index + 1) * result.table.rowCount));
};
export function invalid(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error("expected InvalidInputError");
}
