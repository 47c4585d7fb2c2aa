// Hot RPCs served straight on grpc-js. nice-grpc runs every call, and every item of a stream, through a
// chain of async generators (one per middleware) and an AbortController; for a small Estimate that
// chain costs more than the estimate. A direct method has the same behaviour as the middleware stack
// of grpc-server.ts, in one pass per call or item: metrics, bearer tokens, request checks (undecodable,
// wire and field bounds), status mapping and logging. Tracing needs the middleware: with tracing on,
// startGrpcServer serves every method through nice-grpc.
import * as grpc from "@grpc/grpc-js";
import { AbortError } from "abort-controller-x";
import { ServerError, Status } from "nice-grpc";
import { type AuthPolicy, admitCall } from "../security/auth-middleware.js";
import { acceptAny, nextRequestId, rejectMalformed } from "./call-middleware.js";
import type { Logger } from "../observe/logger.js";
import type { MeasuredCall } from "../observe/metrics.js";
import type { RequestCheck } from "../checks/request-bounds.js";
import { toServerError } from "./status-mapping.js";

/**
 * A unary method: the decoded, checked request in, the response out (errors map to a status); a
 * response returned (not promised) is sent in the same turn. A response (here and from a stream item)
 * may also be its encoded bytes, sent as they are.
 */
export interface DirectUnaryMethod<Request = never, Response = unknown> {
  readonly kind: "unary";
  handle(request: Request): Response | Promise<Response>;
}

/**
 * A bidirectional stream answered item by item, in order: one response per request item, written in
 * the turn the item arrived when handleItem returns it (not a promise) and nothing is queued before it.
 * An error thrown by handleItem ends the call with its status (answer per-item failures in the
 * response instead).
 */
export interface DirectBidiMethod<Request = never, Response = unknown> {
  readonly kind: "bidi";
  handleItem(request: Request): Response | Promise<Response>;
  /** When aborted (server closing), the stream ends with OK after the item in progress. */
  readonly closing?: AbortSignal;
}

export type DirectMethod = DirectUnaryMethod | DirectBidiMethod;

/** What every direct call shares with the middleware stack. */
export interface DirectCallKit {
  readonly logger: Logger;
  readonly auth: AuthPolicy | undefined;
  /** Field bounds per RPC path. */
  readonly checks: ReadonlyMap<string, RequestCheck>;
  /** Per-call metrics, or undefined when measuring is off. */
  readonly meter: ((method: string) => MeasuredCall) | undefined;
}

/** The parts of a ts-proto method definition a direct method needs. */
export interface DirectMethodDefinition {
  readonly name: string;
  readonly requestType: { decode(input: Uint8Array): unknown };
  readonly responseType: { encode(message: never): { finish(): Uint8Array } };
}

/** Registers one direct method on a grpc-js server (before it serves) at `/<service>/<Method>`. */
export function registerDirectMethod(
  server: grpc.Server,
  serviceFullName: string,
  definition: DirectMethodDefinition,
  method: DirectMethod,
  kit: DirectCallKit,
): void {
  const path = `/${serviceFullName}/${definition.name}`;
  const serialize = (response: unknown): Buffer => {
    const bytes = response instanceof Uint8Array ? response : definition.responseType.encode(response as never).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  const deserialize = (bytes: Buffer): unknown => definition.requestType.decode(bytes);
  const steps = new MethodSteps(path, kit);
  const registered =
    method.kind === "unary"
      ? server.register(path, unaryHandler(method, steps), serialize, deserialize, "unary")
      : server.register(path, bidiHandler(method, steps), serialize, deserialize, "bidi");
  if (!registered) throw new Error(`${path} is already registered`);
}

// The steps every call of one path shares: its request check, admission, status mapping, logging.
class MethodSteps {
  readonly check: RequestCheck;

  constructor(
    readonly path: string,
    private readonly kit: DirectCallKit,
  ) {
    this.check = kit.checks.get(path) ?? acceptAny;
  }

  /** Starts measuring and admits the call (throws ServerError when its token is refused). */
  start(metadata: grpc.Metadata, peer: () => string): MeasuredCall | undefined {
    const measured = this.kit.meter?.(this.path);
    if (this.kit.auth !== undefined) {
      const header = metadata.get("authorization")[0];
      try {
        admitCall(this.kit.auth, this.path, typeof header === "string" ? header : undefined, peer(), this.kit.logger);
      } catch (error) {
        measured?.failed(error);
        throw error;
      }
    }
    return measured;
  }

  /** Maps an error to the status sent, logging it as the call middleware does. */
  status(error: unknown): { error: ServerError; status: Partial<grpc.StatusObject> } {
    const mapped = toServerError(error, this.kit.logger.child({ rpc: this.path, requestId: nextRequestId() }));
    const serverError = mapped instanceof ServerError ? mapped : new ServerError(Status.UNKNOWN, String(mapped));
    return { error: serverError, status: { code: serverError.code as number, details: serverError.details } };
  }

  debugCompleted(startedMs: number): void {
    if (!this.kit.logger.isLevelEnabled("debug")) return;
    this.kit.logger
      .child({ rpc: this.path, requestId: nextRequestId() })
      .debug({ ms: Math.round(performance.now() - startedMs) }, "call completed");
  }
}

function unaryHandler(method: DirectUnaryMethod, steps: MethodSteps): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const startedMs = performance.now();
    let measured: MeasuredCall | undefined;
    const answer = (response: unknown) => {
      measured?.ok();
      steps.debugCompleted(startedMs);
      callback(null, response);
    };
    const fail = (error: unknown) => {
      const { error: mapped, status } = steps.status(error);
      measured?.failed(mapped);
      callback(status);
    };
    try {
      measured = steps.start(call.metadata, () => call.getPeer());
    } catch (error) {
      callback(steps.status(error).status);
      return;
    }
    let response: unknown;
    try {
      response = method.handle(rejectMalformed(call.request, steps.check) as never);
    } catch (error) {
      fail(error);
      return;
    }
    if (response instanceof Promise) response.then(answer, fail);
    else answer(response);
  };
}

function bidiHandler(method: DirectBidiMethod, steps: MethodSteps): grpc.handleBidiStreamingCall<unknown, unknown> {
  return (call) => {
    const startedMs = performance.now();
    let measured: MeasuredCall | undefined;
    let done = false;
    let stopping = false;
    // Steps (answer an item, end the call) run in order. While none is pending a step runs at once;
    // `tail` is the pending chain, if any.
    let tail: Promise<void> | undefined;
    const enqueue = (step: () => void | Promise<void>) => {
      const pending = tail === undefined ? step() : tail.then(step);
      if (pending === undefined) return;
      const settled: Promise<void> = pending.then(() => {
        if (tail === settled) tail = undefined;
      });
      tail = settled;
    };
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      method.closing?.removeEventListener("abort", onClosing);
      if (error === undefined) {
        measured?.ok();
        steps.debugCompleted(startedMs);
        call.end();
        return;
      }
      const { error: mapped, status } = steps.status(error);
      measured?.failed(mapped);
      call.emit("error", status);
    };
    const send = (response: unknown): void | Promise<void> => {
      if (!done && !call.write(response)) return drained(call);
    };
    const answer = (item: unknown): void | Promise<void> => {
      if (done || stopping) return;
      let response: unknown;
      try {
        response = method.handleItem(rejectMalformed(item, steps.check) as never);
      } catch (error) {
        finish(error);
        return;
      }
      if (response instanceof Promise) return response.then(send, finish);
      return send(response);
    };
    const onClosing = () => {
      stopping = true;
      enqueue(() => finish());
    };
    try {
      measured = steps.start(call.metadata, () => call.getPeer());
    } catch (error) {
      done = true;
      call.emit("error", steps.status(error).status);
      return;
    }
    call.on("cancelled", () => {
      if (done) return;
      done = true;
      method.closing?.removeEventListener("abort", onClosing);
      measured?.failed(new AbortError());
    });
    call.on("data", (item: unknown) => enqueue(() => answer(item)));
    call.on("end", () => enqueue(() => finish()));
    if (method.closing?.aborted) onClosing();
    else method.closing?.addEventListener("abort", onClosing, { once: true });
  };
}

// Resolves when the call can take more writes, or can take none any more.
function drained(call: grpc.ServerDuplexStream<unknown, unknown>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      call.off("drain", done);
      call.off("cancelled", done);
      call.off("close", done);
      resolve();
    };
    call.on("drain", done);
    call.on("cancelled", done);
    call.on("close", done);
  });
}
