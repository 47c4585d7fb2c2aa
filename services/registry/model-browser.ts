// The model browser: read-only HTML pages on the registry's HTTP port (`/ui`), rendered on the server
// from the same catalogue the gRPC API reads (report files through its storage), with no script and
// nothing fetched from elsewhere (works offline). The pages themselves live in browser/:
//   /ui                                           the pipelines (empty state: how to get models)
//   /ui/pipeline/<name>                           node types, models, the stored report's charts
//   /ui/pipeline/<name>/model/<src>/<out>/<fg>/<model>   one model: errors, coefficients or trees, CSV link
//   /ui/pipeline/<name>/report/<file>             the report's files (HTML, SVG, PNG, per-row CSV)
//   /ui/compare/<a>/<b>                           two pipelines' best models side by side
import { NotFoundError } from "../domain/errors.js";
import { REPORT_FOLDER } from "../models/index.js";
import { isReportFileName, REPORT_CONTENT_TYPES } from "../models/report-files.js";
import { comparePage } from "./browser/compare-page.js";
import type { BrowserPage } from "./browser/html.js";
import { modelPage, parseOutputType } from "./browser/model-page.js";
import { pipelinePage } from "./browser/pipeline-page.js";
import { pipelinesPage } from "./browser/pipelines-page.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";

export type { BrowserPage } from "./browser/html.js";

// Only the files `kepler-model report` writes are served, each with the content type its extension says.
async function reportFile(store: ModelCatalogue, name: string, file: string): Promise<BrowserPage> {
  const type = REPORT_CONTENT_TYPES[file.slice(file.lastIndexOf("."))];
  if (type === undefined || !isReportFileName(file)) throw new NotFoundError(`report file ${file}`);
  const body = await store.readPipelineFile(name, `${REPORT_FOLDER}/${file}`).catch(() => undefined);
  if (body === undefined) throw new NotFoundError(`report file ${file} of pipeline ${name}`);
  return { contentType: type, body };
}

/** The page for a /ui path; NotFoundError for anything else. */
export async function modelBrowserPage(store: ModelCatalogue, path: string): Promise<BrowserPage> {
  if (path === "/ui" || path === "/ui/") return pipelinesPage(store);
  let parts: string[];
  try {
    parts = path.split("/").slice(2).map(decodeURIComponent);
  } catch {
    throw new NotFoundError(`page ${path}`);
  }
  const [kind, name, section] = parts;
  if (kind === "compare" && parts.length === 3) return comparePage(store, name!, section!);
  if (kind !== "pipeline" || name === undefined) throw new NotFoundError(`page ${path}`);
  if (parts.length === 2) return pipelinePage(store, name);
  if (parts.length === 4 && section === REPORT_FOLDER) return reportFile(store, name, parts[3]!);
  if (parts.length === 7 && section === "model") {
    const [, , , energySource, outputType, featureGroup, modelName] = parts as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return modelPage(store, {
      pipelineName: name,
      energySource,
      outputType: parseOutputType(outputType),
      featureGroup,
      modelName,
    });
  }
  throw new NotFoundError(`page ${path}`);
}
