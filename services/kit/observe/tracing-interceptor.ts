// The tracing step of the call pipeline (only when tracing is on): one SERVER span per call, child of
// the caller's span when the call carries a `traceparent`; the handler (and every peer call it makes)
// runs with that span active, and the call's log lines carry its trace id.
import {
  type Context,
  context as otelContext,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { CallInterceptor } from "../calls/call-pipeline.js";
import type { InboundCall } from "../calls/inbound-call.js";

const headerGetter = {
  keys: (call: InboundCall) => call.headerNames(),
  get: (call: InboundCall, key: string) => call.header(key),
};

export function tracingInterceptor(service: string): CallInterceptor {
  const tracer = trace.getTracer("kepler-model");
  return {
    enter(call) {
      const parent = propagation.extract(ROOT_CONTEXT, call, headerGetter);
      const span: Span = tracer.startSpan(
        call.method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            "rpc.system": call.transport === "grpc" ? "grpc" : call.transport,
            "rpc.method": call.method,
            "kepler_model.service": service,
          },
        },
        parent,
      );
      call.span = span;
      call.traceContext = trace.setSpan(parent, span);
      call.traceId = span.spanContext().traceId;
    },
    around(call, work) {
      const active = call.traceContext as Context | undefined;
      return active === undefined ? work() : otelContext.with(active, work);
    },
    exit(call) {
      const span = call.span as Span | undefined;
      if (span === undefined) return;
      call.span = undefined;
      const failure = call.failure;
      if (failure !== undefined) {
        span.setAttribute("rpc.grpc.status_code", failure.row.grpc);
        const error = failure.error;
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
    },
  };
}
