// Hot RPCs served straight on grpc-js. nice-grpc runs every call, and every item of a stream, through a
// chain of async generators and an AbortController; for a small Estimate that chain costs more than the
// estimate. A direct method runs the same call pipeline (calls/call-pipeline.ts: logging, metrics,
// tracing, auth, admission, request checks, the error table) with plain calls, once per call or item.
import * as grpc from "@grpc/grpc-js";
import { AbortError } from "abort-controller-x";
import type { CallPipeline } from "../calls/call-pipeline.js";
import { grpcStatusOf } from "../calls/grpc-status.js";
import { STATUS_DETAILS_TRAILER } from "../calls/status-details.js";
import { rpcAccess, type RpcAccess } from "../security/rpc-access.js";
import { GrpcJsInboundCall } from "./grpc-inbound-call.js";

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
  pipeline: CallPipeline,
): void {
  const path = `/${serviceFullName}/${definition.name}`;
  const serialize = (response: unknown): Buffer => {
    const bytes = response instanceof Uint8Array ? response : definition.responseType.encode(response as never).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  const deserialize = (bytes: Buffer): unknown => definition.requestType.decode(bytes);
  const access = rpcAccess(path);
  const registered =
    method.kind === "unary"
      ? server.register(path, unaryHandler(method, pipeline, path, access), serialize, deserialize, "unary")
      : server.register(path, bidiHandler(method, pipeline, path, access), serialize, deserialize, "bidi");
  if (!registered) throw new Error(`${path} is already registered`);
}

// Ends a failed call through the pipeline: the status grpc-js sends (with the details trailer, if any).
export function failedStatus(
  pipeline: CallPipeline,
  call: GrpcJsInboundCall,
  error: unknown,
): Pick<grpc.StatusObject, "code" | "details"> & { metadata?: grpc.Metadata } {
  const status = grpcStatusOf(pipeline.fail(call, error));
  if (status.detailsBin === undefined) return { code: status.code as number, details: status.details };
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS_TRAILER, Buffer.from(status.detailsBin));
  return { code: status.code as number, details: status.details, metadata };
}

function handleUnary(this: DirectUnaryMethod, request: unknown): unknown {
  return this.handle(request as never);
}

function unaryHandler(
  method: DirectUnaryMethod,
  pipeline: CallPipeline,
  path: string,
  access: RpcAccess,
): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const inbound = new GrpcJsInboundCall(path, access, call);
    let waiting: void | Promise<void>;
    try {
      waiting = pipeline.start(inbound);
    } catch (error) {
      callback(failedStatus(pipeline, inbound, error));
      return;
    }
    // Only a queued call waits (admission.ts); an admitted one is answered in this turn.
    if (waiting === undefined) answerUnary(method, pipeline, inbound, call, callback);
    else
      waiting.then(
        () => answerUnary(method, pipeline, inbound, call, callback),
        (error: unknown) => callback(failedStatus(pipeline, inbound, error)),
      );
  };
}

function answerUnary(
  method: DirectUnaryMethod,
  pipeline: CallPipeline,
  inbound: GrpcJsInboundCall,
  call: grpc.ServerUnaryCall<unknown, unknown>,
  callback: grpc.sendUnaryData<unknown>,
): void {
  let response: unknown;
  try {
    pipeline.check(inbound, call.request);
    response = pipeline.run(inbound, handleUnary, method, call.request);
  } catch (error) {
    callback(failedStatus(pipeline, inbound, error));
    return;
  }
  if (!(response instanceof Promise)) {
    pipeline.succeed(inbound);
    callback(null, response);
    return;
  }
  response.then(
    (answer: unknown) => {
      pipeline.succeed(inbound);
      callback(null, answer);
    },
    (error: unknown) => callback(failedStatus(pipeline, inbound, error)),
  );
}

function handleItem(this: DirectBidiMethod, item: unknown): unknown {
  return this.handleItem(item as never);
}

function bidiHandler(
  method: DirectBidiMethod,
  pipeline: CallPipeline,
  path: string,
  access: RpcAccess,
): grpc.handleBidiStreamingCall<unknown, unknown> {
  return (call) => {
    const inbound = new GrpcJsInboundCall(path, access, call);
    inbound.streaming = true;
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
        pipeline.succeed(inbound);
        call.end();
        return;
      }
      call.emit("error", failedStatus(pipeline, inbound, error));
    };
    const send = (response: unknown): void | Promise<void> => {
      if (!done && !call.write(response)) return drained(call);
    };
    const answer = (item: unknown): void | Promise<void> => {
      if (done || stopping) return;
      let response: unknown;
      try {
        pipeline.check(inbound, item);
        response = pipeline.run(inbound, handleItem, method, item);
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
    let waiting: void | Promise<void>;
    try {
      waiting = pipeline.start(inbound);
    } catch (error) {
      done = true;
      call.emit("error", failedStatus(pipeline, inbound, error));
      return;
    }
    // A queued call: its items wait behind the admission (a refusal ends the call).
    if (waiting !== undefined) enqueue(() => waiting.then(undefined, finish));
    call.on("cancelled", () => {
      if (done) return;
      done = true;
      method.closing?.removeEventListener("abort", onClosing);
      pipeline.fail(inbound, new AbortError());
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
