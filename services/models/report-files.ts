// The files of a pipeline's stored accuracy report (`<pipeline>/report/`): exactly what `kepler-model
// report` writes (cli/commands/report.ts: report.html, and per energy source the charts of
// cli/report/report-charts.ts as SVG and PNG; tables as CSV; each model's per-row predictions,
// reportPredictionsFile in model-location.ts). Import keeps only these, each with the
// content its name says, so a zip cannot plant other pages; the registry serves them under a policy
// that runs no script (registry/browser-page-headers.ts).

const CHART_KINDS = ["power", "mae", "residual", "distribution", "intervals"] as const;
const REPORT_FILE = new RegExp(
  `^(?:report\\.html|(?:${CHART_KINDS.join("|")})-[a-z0-9_-]{1,64}\\.(?:svg|png)|[a-z0-9_-]{1,64}\\.csv|predictions-[A-Za-z0-9_-]{1,200}\\.csv)$`,
);

/** The content type a stored report file is served with, by its extension. */
export const REPORT_CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".csv": "text/csv; charset=utf-8",
};

/** Whether `name` is a file name the report writer produces (report.html, power-<source>.svg, ...). */
export function isReportFileName(name: string): boolean {
  return REPORT_FILE.test(name);
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

// The first non-blank characters of a text file, lower-cased.
function textStart(bytes: Uint8Array, length: number): string {
  return new TextDecoder().decode(bytes.subarray(0, 512)).trimStart().slice(0, length).toLowerCase();
}

/** Why a file is not one the report writer produces (name or content type), or undefined when it is. */
export function reportFileProblem(name: string, bytes: Uint8Array): string | undefined {
  if (!isReportFileName(name))
    return "not a file kepler-model report writes (report.html, <chart>-<source>.svg/.png, <table>.csv)";
  if (name.endsWith(".csv")) return textStart(bytes, 1) === "<" ? "named .csv but markup" : undefined;
  if (name.endsWith(".png"))
    return PNG_SIGNATURE.every((byte, i) => bytes[i] === byte) ? undefined : "named .png but not a PNG image";
  if (name.endsWith(".svg")) return textStart(bytes, 4) === "<svg" ? undefined : "named .svg but not an SVG document";
  return textStart(bytes, 15) === "<!doctype html>" ? undefined : "named .html but not an HTML document";
}
