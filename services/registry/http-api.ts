// node:http glue for the reference model server's routes on the registry's port: POST /model and
// GET /best-models (spec §7.2-7.3). Parsing and response shapes live in http-model-api.ts; selection
// is the same domain function as gRPC SelectModel / ListBestModels.
import type { IncomingMessage, ServerResponse } from "node:http";
import { FailedPreconditionError, InvalidInputError, NotFoundError } from "../domain/errors.js";
import { BodyTooLargeError, readRequestBody } from "../kit/transport/http-request-body.js";
import type { Logger } from "../kit/observe/logger.js";
import { observeHttp } from "../kit/observe/metrics.js";
import type { ModelStore } from "./domain/model-store.js";
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

/** Largest POST /model body (Kepler's is about 400 bytes). */
export const MODEL_REQUEST_LIMIT_BYTES = 1024 * 1024;

const ROUTES: Record<string, string> = { "/model": "POST", "/best-models": "GET" };

function send(response: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  const isText = typeof body === "string";
  response.writeHead(status, {
    "Content-Type": isText ? "text/plain; charset=utf-8" : "application/octet-stream",
    "Content-Length": String(Buffer.byteLength(body)),
    ...headers,
  });
  response.end(body);
}

function sendJson(response: ServerResponse, body: unknown): void {
  send(response, 200, JSON.stringify(body), { "Content-Type": "application/json" });
}

// Expected failures become the reference's 400; anything else is a bug: 500, logged.
function isExpected(error: unknown): error is Error {
  return error instanceof InvalidInputError || error instanceof NotFoundError || error instanceof FailedPreconditionError;
}

async function postModel(store: ModelStore, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const text = (await readRequestBody(request, MODEL_REQUEST_LIMIT_BYTES)).toString("utf8");
  const parsed = parseModelRequest(text);
  let selected: ReturnType<typeof selectModel>;
  try {
    selected = selectModel(store, parsed.query);
  } catch (error) {
    if (error instanceof InvalidInputError || !isExpected(error)) throw error;
    // The reference's text, then what was searched and why nothing fit.
    send(response, 400, `cannot find model for ${text.trim()} at the moment: ${error.message}`);
    return;
  }
  const { model, selection } = selected;
  observeSelection("http", selection);
  // Which node type and why, in headers: they reach every client without changing the body Kepler decodes.
  const why = selectionHeaders(selection);
  if (parsed.weight) {
    const body = weightResponseBody(model, store, parsed.nodeType, parsed.query.machineSpec !== undefined);
    send(response, 200, JSON.stringify(body), { "Content-Type": "application/json", ...why });
    return;
  }
  const archive = await store.readArchive(model);
  send(response, 200, archive, {
    "Content-Type": "application/zip",
    "Content-Disposition": `attachment; filename=${model.location.modelName}.zip`,
    ...why,
  });
}

function getBestModels(store: ModelStore, url: URL, response: ServerResponse): void {
  try {
    const query = parseBestModelsQuery(url.searchParams);
    const entries = listBestModels(store, query);
    const outputTypes = query.outputType !== undefined ? [query.outputType] : (["AbsPower", "DynPower"] as const);
    sendJson(response, bestModelsResponseBody(entries, outputTypes));
  } catch (error) {
    if (!isExpected(error)) throw error;
    send(response, 400, `failed to get best model list: ${error.message}`);
  }
}

async function getBrowserPage(store: ModelStore, path: string, response: ServerResponse): Promise<void> {
  try {
    const { contentType, body } = await modelBrowserPage(store, path);
    send(response, 200, body, { "Content-Type": contentType });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    send(response, 404, error.message);
  }
}

/** The request handler for the registry's HTTP routes. */
export function createRegistryHttpHandler(
  store: ModelStore,
  logger: Logger,
): (request: IncomingMessage, response: ServerResponse) => void {
  const log = logger.child({ protocol: "http" });
  return (request, response) => {
    const startedMs = performance.now();
    const url = new URL(request.url ?? "/", "http://registry");
    const browser = url.pathname === "/ui" || url.pathname.startsWith("/ui/");
    const method = browser ? "GET" : ROUTES[url.pathname];
    const handle = async (): Promise<void> => {
      if (method === undefined)
        return send(response, 404, `no route ${url.pathname}: the routes are POST /model, GET /best-models and GET /ui`);
      if (request.method !== method) return send(response, 405, `${url.pathname} takes ${method}`, { Allow: method });
      if (browser) return getBrowserPage(store, url.pathname, response);
      if (url.pathname === "/model") return postModel(store, request, response);
      return getBestModels(store, url, response);
    };
    handle()
      .catch((error: unknown) => {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        // The rest of the body is drained (bounded by the request timeout), so the client reads the
        // answer instead of a reset, and a keep-alive connection stays usable.
        if (error instanceof BodyTooLargeError) return send(response, 413, error.message);
        if (error instanceof InvalidInputError) return send(response, 400, error.message);
        log.error({ err: error, path: url.pathname }, "HTTP request failed");
        send(response, 500, "internal error");
      })
      .finally(() => {
        const ms = Math.round(performance.now() - startedMs);
        observeHttp(
          "registry",
          method === undefined ? "unknown" : browser ? "/ui" : url.pathname,
          response.statusCode,
          ms / 1000,
        );
        log.debug({ method: request.method, path: url.pathname, status: response.statusCode, ms }, "http request completed");
      });
  };
}
