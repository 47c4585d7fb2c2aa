// The call pipeline as nice-grpc server middleware: every method nice-grpc serves (the services' own,
// health, reflection) runs through it. Each step of the handler, and of a streamed response, runs
// inside the pipeline's wrapping steps (tracing's span).
import { AbortError } from "abort-controller-x";
import { type CallContext, ServerError, type ServerMiddlewareCall } from "nice-grpc";
import type { CallPipeline } from "../calls/call-pipeline.js";
import { grpcStatusOf } from "../calls/grpc-status.js";
import type { InboundCall } from "../calls/inbound-call.js";
import { STATUS_DETAILS_TRAILER } from "../calls/status-details.js";
import { NiceGrpcInboundCall } from "./grpc-inbound-call.js";

function nextStep<T>(this: AsyncGenerator<T, T | void, undefined>): Promise<IteratorResult<T, T | void>> {
  return this.next();
}

async function* checkedStream(pipeline: CallPipeline, call: InboundCall, requests: AsyncIterable<unknown>) {
  for await (const request of requests) {
    pipeline.check(call, request);
    yield request;
  }
}

// The status nice-grpc sends, without a stack trace: it is made here for every failed call (each excess
// call of a flood), and a stack that always points at this line says nothing.
function wireStatus(code: number, details: string): ServerError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ServerError(code, details);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export function createPipelineMiddleware(pipeline: CallPipeline) {
  return async function* callPipeline<Request, Response>(
    call: ServerMiddlewareCall<Request, Response>,
    context: CallContext,
  ): AsyncGenerator<Response, Response | void, undefined> {
    const inbound = new NiceGrpcInboundCall(call.method.path, context);
    inbound.streaming = call.method.requestStream || call.method.responseStream;
    let ended = false;
    let steps: AsyncGenerator<Response, Response | void, undefined> | undefined;
    try {
      const waiting = pipeline.start(inbound);
      if (waiting !== undefined) await waiting;
      let request = call.request;
      if (call.method.requestStream)
        request = checkedStream(pipeline, inbound, call.request as AsyncIterable<unknown>) as typeof request;
      else pipeline.check(inbound, request);
      steps = pipeline.run(inbound, (checked: typeof request) => call.next(checked, context), undefined, request);
      let step: IteratorResult<Response, Response | void> = await pipeline.run(inbound, nextStep, steps, undefined);
      while (step.done !== true) {
        yield step.value;
        step = await pipeline.run(inbound, nextStep, steps, undefined);
      }
      ended = true;
      pipeline.succeed(inbound);
      return step.value;
    } catch (error) {
      ended = true;
      const failure = pipeline.fail(inbound, error);
      if (failure.kind === "cancelled") throw error;
      const status = grpcStatusOf(failure);
      if (status.detailsBin !== undefined) context.trailer.set(STATUS_DETAILS_TRAILER, status.detailsBin);
      throw wireStatus(status.code, status.details);
    } finally {
      // The client went away while a response stream was being written: end the handler too.
      if (!ended) {
        pipeline.fail(inbound, new AbortError());
        await steps?.return(undefined);
      }
    }
  };
}
