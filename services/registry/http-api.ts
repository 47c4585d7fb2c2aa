// The reference model server's routes on the registry's port: POST /model and GET /best-models (spec
// §7.2-7.3), and the model browser under /ui. Parsing and response shapes live in http-model-api.ts;
// selection is the same domain function as gRPC SelectModel / ListBestModels. The kit serves them
// through the call pipeline (auth, metrics, logging; failures answered from the error table).
import type { IncomingMessage, ServerResponse } from "node:http";
import { errorKindOf, isRefusal } from "../kit/calls/error-table.js";
import type { UploadBudget } from "../kit/calls/upload-budget.js";
import { readRequestBody } from "../kit/transport/http-request-body.js";
import { sendHttp, sendJson } from "../kit/transport/http-response.js";
import type { HttpRoute } from "../kit/transport/http-routes.js";
import { OUTPUT_TYPE_NAMES } from "../models/index.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";
import { listBestModels, selectModel } from "./domain/select-model.js";
import {
  bestModelsResponseBody,
  parseBestModelsQuery,
  parseModelRequest,
  selectionHeaders,
  weightResponseBody,
} from "./http-model-api.js";
import { observeSelection } from "./metrics.js";
import { modelBrowserPage } from "./model-browser.js";
import { BROWSER_PAGE_HEADERS } from "./browser-page-headers.js";

/** Largest POST /model body (Kepler's is about 400 bytes). */
const MODEL_REQUEST_LIMIT_BYTES = 1024 * 1024;

async function postModel(
  store: ModelCatalogue,
  budget: UploadBudget,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const reservation = budget.reserve("this request");
  let text: string;
  try {
    text = (await readRequestBody(request, MODEL_REQUEST_LIMIT_BYTES, reservation)).toString("utf8");
  } finally {
    // Parsed text is small beside the body's buffer, which is garbage once decoded.
    reservation.release();
  }
  const parsed = parseModelRequest(text);
  let selected: ReturnType<typeof selectModel>;
  try {
    selected = selectModel(store, parsed.query);
  } catch (error) {
    if (errorKindOf(error) === "invalid-input" || !isRefusal(error)) throw error;
    // The reference's 400 and text, then what was searched and why nothing fit.
    sendHttp(response, 400, `cannot find model for ${text.trim()} at the moment: ${(error as Error).message}`);
    return;
  }
  const { model, selection } = selected;
  observeSelection("http", selection);
  // Which node type and why, in headers: they reach every client without changing the body Kepler decodes.
  const why = selectionHeaders(selection);
  if (parsed.weight) {
    const body = weightResponseBody(model, store, parsed.nodeType, parsed.query.machineSpec !== undefined);
    sendHttp(response, 200, JSON.stringify(body), { "Content-Type": "application/json", ...why });
    return;
  }
  const archive = await store.readArchive(model);
  sendHttp(response, 200, archive, {
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename=${model.location.modelName}.zip`,
    ...why,
  });
}

function getBestModels(store: ModelCatalogue, url: URL, response: ServerResponse): void {
  try {
    const query = parseBestModelsQuery(url.searchParams);
    const entries = listBestModels(store, query);
    const outputTypes = query.outputType !== undefined ? [query.outputType] : OUTPUT_TYPE_NAMES;
    sendJson(response, bestModelsResponseBody(entries, outputTypes));
  } catch (error) {
    if (!isRefusal(error)) throw error;
    // The reference answers every refusal here with 400 and this text.
    sendHttp(response, 400, `failed to get best model list: ${(error as Error).message}`);
  }
}

async function getBrowserPage(store: ModelCatalogue, path: string, response: ServerResponse): Promise<void> {
  const { contentType, body } = await modelBrowserPage(store, path);
  sendHttp(response, 200, body, { ...BROWSER_PAGE_HEADERS, "Content-Type": contentType });
}

/** The registry's HTTP routes over its model store. */
/** The routes; `budget` is the process's upload budget POST /model bodies are read within. */
export function registryHttpRoutes(store: ModelCatalogue, budget: UploadBudget): HttpRoute[] {
  return [
    { method: "POST", path: "/model", handle: (request, response) => postModel(store, budget, request, response) },
    { method: "GET", path: "/best-models", handle: (_request, response, url) => getBestModels(store, url, response) },
    {
      method: "GET",
      path: "/ui",
      prefix: true,
      handle: (_request, response, url) => getBrowserPage(store, url.pathname, response),
    },
  ];
}
