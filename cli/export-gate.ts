// `models export`'s post-processing of the registry's pipeline zip, as the reference's exporter does
// (train/exporter: validator, save_pipeline_metadata, generate_report_results): drop the models over the
// accuracy thresholds, stamp metadata.json with publisher / collect_time / export_time, and add a
// README.md describing the pipeline (machines, workload, trainers, accuracy, what was dropped).
import { type ZipEntry, createZip, heldOutOf, readZip } from "../services/models/index.js";

/** The reference's hard threshold (validator.py hard_threshold): a model over it is never exported. */
export const DEFAULT_MAX_MAPE = 100;
export const DEFAULT_MAX_MAE = 100;

export interface ExportGateOptions {
  pipelineName: string;
  maxMape: number;
  maxMae: number;
  /**
   * The reference's soft criterion (validator.py mape_threshold 20 / mae_threshold 10): when set, a model
   * is kept only if its MAPE is within acceptMape or its MAE within acceptMae. Undefined: not applied.
   */
  acceptMape?: number;
  acceptMae?: number;
  publisher: string;
  /** "YYYY-MM-DD HH:MM:SS" or "" (unknown). */
  collectTime: string;
  /** "YYYY-MM-DD HH:MM:SS". */
  exportTime: string;
}

/**
 * One model of the archive with its accuracy (NaN when its metadata.json does not state it): the held-out
 * errors (metadata `held_out`, unrounded) when the model stores them, else the reference's `mae` / `mape`
 * (also measured on the test rows, rounded; kepler-model-db's `mape` is the last component's).
 */
export interface ExportedModel {
  energySource: string;
  outputType: string;
  featureGroup: string;
  modelName: string;
  mae: number;
  mape: number;
  /** Why the gate dropped it; undefined when exported. */
  droppedBecause?: string;
}

export interface ExportGateResult {
  archive: Buffer;
  models: ExportedModel[];
  readme: string;
}

const MODEL_ZIP = /^([^/]+)\/(AbsPower|DynPower)\/([^/]+)\/([^/]+)\.zip$/;

function numberOf(value: unknown): number {
  return typeof value === "number" ? value : Number.NaN;
}

function modelOf(entry: ZipEntry): ExportedModel | undefined {
  const match = MODEL_ZIP.exec(entry.name);
  if (match === null) return undefined;
  const [, energySource, outputType, featureGroup, modelName] = match as unknown as [string, string, string, string, string];
  const inner = readZip(entry.data, entry.name).find((file) => file.name === "metadata.json");
  const metadata = inner === undefined ? {} : (JSON.parse(Buffer.from(inner.data).toString("utf8")) as Record<string, unknown>);
  const heldOut = heldOutOf(metadata);
  if (heldOut !== undefined)
    return { energySource, outputType, featureGroup, modelName, mae: heldOut.maeWatts, mape: heldOut.mapePercent };
  return { energySource, outputType, featureGroup, modelName, mae: numberOf(metadata.mae), mape: numberOf(metadata.mape) };
}

// Held-out errors are unrounded: messages show them to 2 decimals, as the reference's metadata holds them.
const twoDecimals = (value: number) => Number(value.toFixed(2));

// The reference's gate: over either threshold is dropped. An unknown value never drops a model.
function dropReason(model: ExportedModel, options: ExportGateOptions): string | undefined {
  if (model.mape > options.maxMape) return `MAPE ${twoDecimals(model.mape)} % > ${options.maxMape} %`;
  if (model.mae > options.maxMae) return `MAE ${twoDecimals(model.mae)} W > ${options.maxMae} W`;
  const { acceptMape, acceptMae } = options;
  if (acceptMape === undefined && acceptMae === undefined) return undefined;
  if (acceptMape !== undefined && !(model.mape > acceptMape)) return undefined;
  if (acceptMae !== undefined && !(model.mae > acceptMae)) return undefined;
  const missed = [
    ...(acceptMape === undefined ? [] : [`MAPE ${twoDecimals(model.mape)} % > ${acceptMape} %`]),
    ...(acceptMae === undefined ? [] : [`MAE ${twoDecimals(model.mae)} W > ${acceptMae} W`]),
  ];
  return `${missed.join(" and ")} (not accepted)`;
}

// Removes the dropped models' rows from a `<source>_<OutputType>_model_metadata.csv` and renumbers the
// index column. Rows are matched on model_name (2nd field) and the trailing feature_group field; neither
// holds commas or quotes.
function filterModelTable(csv: string, dropped: readonly ExportedModel[]): string {
  const [header, ...rows] = csv.replace(/\n$/, "").split("\n");
  const kept = rows.filter((row) => {
    const fields = row.split(",");
    return !dropped.some((m) => fields[1] === m.modelName && fields.at(-1) === m.featureGroup);
  });
  return `${[header, ...kept.map((row, index) => `${index}${row.slice(row.indexOf(","))}`)].join("\n")}\n`;
}

function tableOf(name: string): { energySource: string; outputType: string } | undefined {
  const match = /^([^/]+)_(AbsPower|DynPower)_model_metadata\.csv$/.exec(name);
  return match === null ? undefined : { energySource: match[1] as string, outputType: match[2] as string };
}

const shown = (value: number) => (Number.isNaN(value) ? "unknown" : String(Number(value.toFixed(2))));

function markdownTable(header: readonly string[], rows: readonly string[][]): string[] {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${row.join(" | ")} |`)];
}

function acceptance(options: ExportGateOptions): string {
  const bounds = [
    ...(options.acceptMape === undefined ? [] : [`MAPE <= ${options.acceptMape} %`]),
    ...(options.acceptMae === undefined ? [] : [`MAE <= ${options.acceptMae} W`]),
  ];
  return bounds.length === 0 ? "" : `; the others are kept only with ${bounds.join(" or ")}`;
}

/** The README.md of an exported pipeline. */
function renderExportReadme(
  options: ExportGateOptions,
  metadata: Record<string, unknown>,
  nodeTypeIndex: Record<string, unknown>,
  models: readonly ExportedModel[],
  hasReport = false,
): string {
  const list = (value: unknown) => (Array.isArray(value) && value.length > 0 ? value.map(String).join(", ") : "none");
  const lines = [
    `# ${options.pipelineName}`,
    "",
    `- Publisher: ${options.publisher || "unknown"}`,
    `- Collected: ${options.collectTime || "unknown"}`,
    `- Exported: ${options.exportTime}`,
    `- Workload: ${typeof metadata.workload === "string" && metadata.workload !== "" ? metadata.workload : "unknown"}`,
    `- Extractor: ${String(metadata.extractor ?? "unknown")}, isolator: ${String(metadata.isolator ?? "unknown")}`,
    `- AbsPower trainers: ${list(metadata.abs_trainers)}`,
    `- DynPower trainers: ${list(metadata.dyn_trainers)}`,
    `- Validity gate: models with MAPE > ${options.maxMape} % or MAE > ${options.maxMae} W are dropped${acceptance(options)}`,
    ...(hasReport
      ? [
          "- Accuracy report: [report/report.html](report/report.html) (charts as report/*.svg and *.png; it covers every AbsPower model the pipeline held, also those the gate dropped)",
        ]
      : []),
    "",
    "## Machines (node types)",
    "",
  ];
  const nodeRows = Object.entries(nodeTypeIndex).map(([nodeType, entry]) => {
    const record = (entry ?? {}) as { attrs?: Record<string, unknown>; members?: unknown };
    const attrs = record.attrs ?? {};
    const attr = (key: string) => String(attrs[key] ?? "");
    return [nodeType, attr("processor"), attr("cores"), attr("chips"), attr("memory"), attr("frequency"), list(record.members)];
  });
  lines.push(`Available node types: ${nodeRows.length}`, "");
  if (nodeRows.length === 0) lines.push("No machine spec was indexed.");
  else
    lines.push(
      ...markdownTable(["node type", "processor", "cores", "chips", "memory (GiB)", "frequency (MHz)", "machines"], nodeRows),
    );
  const byAccuracy = (a: ExportedModel, b: ExportedModel) =>
    a.energySource.localeCompare(b.energySource) ||
    a.outputType.localeCompare(b.outputType) ||
    a.featureGroup.localeCompare(b.featureGroup) ||
    (Number.isNaN(a.mae) ? Infinity : a.mae) - (Number.isNaN(b.mae) ? Infinity : b.mae) ||
    a.modelName.localeCompare(b.modelName);
  const row = (m: ExportedModel) => [m.energySource, m.outputType, m.featureGroup, m.modelName, shown(m.mae), shown(m.mape)];
  const kept = models.filter((m) => m.droppedBecause === undefined).sort(byAccuracy);
  const dropped = models.filter((m) => m.droppedBecause !== undefined).sort(byAccuracy);
  lines.push("", `## Accuracy (${kept.length} models exported)`, "");
  if (kept.length === 0) lines.push("No model passed the validity gate.");
  else lines.push(...markdownTable(["source", "output type", "feature group", "model", "MAE (W)", "MAPE (%)"], kept.map(row)));
  lines.push("", `## Dropped (${dropped.length} models)`, "");
  if (dropped.length === 0) lines.push("None.");
  else
    lines.push(
      ...markdownTable(
        ["source", "output type", "feature group", "model", "MAE (W)", "MAPE (%)", "reason"],
        dropped.map((m) => [...row(m), m.droppedBecause as string]),
      ),
    );
  return `${lines.join("\n")}\n`;
}

const json = (entry: ZipEntry | undefined): Record<string, unknown> =>
  entry === undefined ? {} : (JSON.parse(Buffer.from(entry.data).toString("utf8")) as Record<string, unknown>);

/** Applies the gate, stamps metadata.json and adds README.md to a pipeline zip from ExportPipeline. */
export function gateExportedPipeline(archive: Uint8Array, options: ExportGateOptions): ExportGateResult {
  const entries = readZip(archive, "exported pipeline");
  const models: ExportedModel[] = [];
  for (const entry of entries) {
    const model = modelOf(entry);
    if (model === undefined) continue;
    const reason = dropReason(model, options);
    if (reason !== undefined) model.droppedBecause = reason;
    models.push(model);
  }
  const dropped = models.filter((m) => m.droppedBecause !== undefined);
  const droppedPaths = new Set(
    dropped.flatMap((m) => {
      const base = `${m.energySource}/${m.outputType}/${m.featureGroup}/${m.modelName}`;
      return [`${base}.zip`, `${base}.json`];
    }),
  );
  const metadata = {
    ...json(entries.find((e) => e.name === "metadata.json")),
    publisher: options.publisher,
    collect_time: options.collectTime,
    export_time: options.exportTime,
  };
  const hasReport = entries.some((e) => e.name === "report/report.html");
  const readme = renderExportReadme(
    options,
    metadata,
    json(entries.find((e) => e.name === "node_type_index.json")),
    models,
    hasReport,
  );
  const out: ZipEntry[] = [];
  for (const entry of entries) {
    if (droppedPaths.has(entry.name) || entry.name === "metadata.json" || entry.name === "README.md") continue;
    const table = tableOf(entry.name);
    if (table === undefined) {
      out.push(entry);
      continue;
    }
    const inTable = dropped.filter((m) => m.energySource === table.energySource && m.outputType === table.outputType);
    out.push({ name: entry.name, data: Buffer.from(filterModelTable(Buffer.from(entry.data).toString("utf8"), inTable)) });
  }
  out.push({ name: "metadata.json", data: Buffer.from(JSON.stringify(metadata)) });
  out.push({ name: "README.md", data: Buffer.from(readme) });
  return { archive: createZip(out), models, readme };
}
