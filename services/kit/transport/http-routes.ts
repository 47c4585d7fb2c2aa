// HTTP/1.1 routes on a gRPC server's port (shared-port-listener.ts), each request one call of the call
// pipeline: auth (a route only reads unless it says otherwise), metrics by route and status, logging,
// tracing; a failure is answered with its HTTP status from the error table and its message as text.
// A service adds a route by listing it in its main (e.g. the registry's POST /model, http-api.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallPipeline } from "../calls/call-pipeline.js";
import type { CallFailure } from "../calls/error-table.js";
import { InboundCall } from "../calls/inbound-call.js";
import { type ClientCertificate, verifiedClientCertificate } from "../security/client-certificate.js";
import type { RpcAccess } from "../security/rpc-access.js";
import { sendHttp } from "./http-response.js";
import { createTurnGate } from "../calls/turn-gate.js";

export interface HttpRoute {
  readonly method: "GET" | "POST";
  /** The path; with `prefix`, also every path under it (e.g. "/ui" serves /ui and /ui/...). */
  readonly path: string;
  readonly prefix?: boolean;
  /** What the route needs when bearer tokens are configured (default: read, like the gRPC reads). */
  readonly access?: RpcAccess;
  handle(request: IncomingMessage, response: ServerResponse, url: URL): void | Promise<void>;
}

class HttpInboundCall extends InboundCall {
  constructor(
    method: string,
    label: string,
    access: RpcAccess,
    private readonly request: IncomingMessage,
  ) {
    super("http", method, label, access);
  }

  header(name: string): string | undefined {
    const value = this.request.headers[name];
    return typeof value === "string" ? value : undefined;
  }

  headerNames(): string[] {
    return Object.keys(this.request.headers);
  }

  peer(): string {
    return `${this.request.socket.remoteAddress ?? ""}:${this.request.socket.remotePort ?? ""}`;
  }

  override clientCertificate(): ClientCertificate | undefined {
    return verifiedClientCertificate(this.request.socket);
  }
}

function handleRoute(this: HttpRoute, args: [IncomingMessage, ServerResponse, URL]): void | Promise<void> {
  return this.handle(args[0], args[1], args[2]);
}

// "POST /model, GET /best-models and GET /ui"
function listing(routes: readonly HttpRoute[]): string {
  const names = routes.map((route) => `${route.method} ${route.path}`);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

// A refusal's hints: the auth scheme to use, or when to retry (seconds, rounded up).
function failureHeaders(failure: CallFailure): Record<string, string> {
  if (failure.row.http === 401) return { "WWW-Authenticate": "Bearer" };
  const retryAfterMs = failure.facts?.retryAfterMs;
  return retryAfterMs === undefined ? {} : { "Retry-After": String(Math.max(1, Math.ceil(retryAfterMs / 1000))) };
}

// Requests started in one event-loop turn (about 2 ms of requests); the rest of a burst waits for later
// turns, up to REQUESTS_WAITING (a memory bound: each holds its connection), past which a request starts
// at once and admission decides (a 429 past its limits).
const REQUESTS_PER_TURN = 4;
const REQUESTS_WAITING = 1024;

/** The node:http handler serving `routes` through `pipeline`. */
export function createHttpFront(
  routes: readonly HttpRoute[],
  pipeline: CallPipeline,
): (request: IncomingMessage, response: ServerResponse) => void {
  const known = listing(routes);
  // A burst of requests is started REQUESTS_PER_TURN per event-loop turn (calls/turn-gate.ts).
  const requestsPerTurn = createTurnGate(REQUESTS_PER_TURN, REQUESTS_WAITING);
  return (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const path = url.pathname;
    const onPath = routes.filter((r) => path === r.path || (r.prefix === true && path.startsWith(`${r.path}/`)));
    const route = onPath.find((r) => r.method === request.method) ?? onPath[0];
    const call = new HttpInboundCall(
      `${request.method ?? "GET"} ${path}`,
      route?.path ?? "unknown",
      route?.access ?? "read",
      request,
    );
    const serve = async (): Promise<void> => {
      const waiting = pipeline.start(call);
      if (waiting !== undefined) await waiting;
      if (route === undefined) return sendHttp(response, 404, `no route ${path}: the routes are ${known}`);
      if (request.method !== route.method)
        return sendHttp(response, 405, `${path} takes ${route.method}`, { Allow: route.method });
      return pipeline.run(call, handleRoute, route, [request, response, url]);
    };
    const start = () =>
      serve().then(
        () => {
          call.httpStatus = response.statusCode;
          pipeline.succeed(call);
        },
        (error: unknown) => {
          if (response.headersSent) {
            call.httpStatus = response.statusCode;
            pipeline.fail(call, error);
            response.destroy();
            return;
          }
          // The rest of a refused body is drained (bounded by the request timeout), so the client reads
          // the answer instead of a reset, and a keep-alive connection stays usable.
          const failure = pipeline.fail(call, error);
          sendHttp(response, failure.row.http, failure.message, failureHeaders(failure));
        },
      );
    const waiting = requestsPerTurn.pass();
    if (waiting === undefined) void start();
    else void waiting.then(start);
  };
}
