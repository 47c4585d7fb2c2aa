// The per-pipeline model table `<source>_<OutputType>_model_metadata.csv` (reference §6.1,
// Pipeline.save_metadata): one row per model of a source and output type, the metadata.json keys as
// columns in the reference's order plus `trainer` and `feature_group`, sorted by feature group then
// MAE, written as pandas' to_csv does (index first, lists as Python reprs).
import { formatPythonFloat, formatPythonStringList } from "../../domain/python-repr.js";
import type { StoredModel } from "./stored-model.js";

/** File name of the table for a source and output type. */
export function modelTableFileName(energySource: string, outputType: string): string {
  return `${energySource}_${outputType}_model_metadata.csv`;
}

const HEAD_COLUMNS = ["model_name", "model_class", "model_file", "features", "fe_files", "output_type", "mae", "mape"];
const LIST_COLUMNS = new Set(["features", "fe_files"]);

/** The table's CSV text for these models (already filtered to one source and output type). */
export function renderModelTable(models: readonly StoredModel[], components: readonly string[]): string {
  const metricColumns = [...components.map((c) => `${c}_mae`), ...components.map((c) => `${c}_mape`)];
  const hasSpec = models.some((model) => isRecord(model.metadata.machine_spec));
  const columns = [
    ...HEAD_COLUMNS,
    ...metricColumns,
    "node_type",
    ...(hasSpec ? ["machine_spec"] : []),
    "trainer",
    "feature_group",
  ];
  const numeric = new Set(["mae", "mape", ...metricColumns]);
  const sorted = [...models].sort(
    (a, b) =>
      compareText(a.location.featureGroup, b.location.featureGroup) ||
      (a.maeWatts ?? Number.POSITIVE_INFINITY) - (b.maeWatts ?? Number.POSITIVE_INFINITY) ||
      compareText(a.location.modelName, b.location.modelName),
  );
  const lines = [["", ...columns].join(",")];
  sorted.forEach((model, index) => {
    const cells = columns.map((column) => {
      if (column === "trainer") return model.trainerName;
      if (column === "feature_group") return model.location.featureGroup;
      if (column === "node_type") return String(model.nodeType);
      const value = model.metadata[column];
      if (value === undefined || value === null) return "";
      if (LIST_COLUMNS.has(column) && Array.isArray(value)) return formatPythonStringList(value.map(String));
      if (numeric.has(column) && typeof value === "number") return formatPythonFloat(value);
      if (column === "machine_spec" && isRecord(value)) return formatPythonDict(value);
      return String(value);
    });
    lines.push([String(index), ...cells].map(quoteCsv).join(","));
  });
  return `${lines.join("\n")}\n`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// A flat dict as Python prints it: {'processor': 'x', 'cores': 96}.
function formatPythonDict(value: Record<string, unknown>): string {
  const items = Object.entries(value).map(([key, item]) => {
    const text = typeof item === "string" ? `'${item.replaceAll("'", "\\'")}'` : item === null ? "None" : String(item);
    return `'${key}': ${text}`;
  });
  return `{${items.join(", ")}}`;
}

function quoteCsv(field: string): string {
  return /[",\n\r]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}
