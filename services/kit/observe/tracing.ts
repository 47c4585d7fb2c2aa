// OpenTelemetry tracing, off by default. startTracing sets up the process's tracer provider (OTLP
// endpoint, or a test's exporter); a server started with `observation.trace` then makes every call it
// answers a span; its context travels to peers in the `traceparent` metadata (W3C trace context), so
// one RunPipeline is one trace across pipeline, extractor, isolator, trainer and registry, and one
// Estimate one trace across estimator and registry. Logs of a traced call carry its trace id.
import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, type ContextManager, context as otelContext, propagation, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { type ClientMiddlewareCall, type CallOptions, Metadata } from "nice-grpc";
import type { ConfigKey } from "../config/config-schema.js";

/** `--otlp-endpoint`: where spans go; empty (the default) turns tracing off. */
export const otlpEndpointKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_OTLP_ENDPOINT",
  flag: "otlp-endpoint",
  description:
    "OTLP/HTTP traces endpoint, e.g. http://otel-collector:4318/v1/traces: every gRPC call becomes a span, one trace per RunPipeline or Estimate across the services; empty (default) turns tracing off (OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces is used when set).",
};

// The active context per async call chain (what @opentelemetry/context-async-hooks does, in a few lines).
class CallContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(context, () => fn.apply(thisArg, args));
  }
  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const run = (...args: unknown[]) => this.storage.run(context, () => (target as (...a: unknown[]) => unknown)(...args));
    return run as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

/**
 * Sets up this process's tracer provider: spans go to `exporter` (tests) or to the OTLP/HTTP `endpoint`.
 * Servers started with `observation.trace` then make a span per call, and peer clients carry the active
 * span's context; returns the shutdown that flushes and removes the provider.
 */
export async function startTracing(options: {
  endpoint?: string;
  exporter?: SpanExporter;
  serviceName?: string;
}): Promise<() => Promise<void>> {
  // The SDK (~1.5 MB of modules) loads only when tracing is turned on, so a process without it starts faster.
  const [{ W3CTraceContextPropagator }, { OTLPTraceExporter }, { resourceFromAttributes }, sdk] = await Promise.all([
    import("@opentelemetry/core"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
  ]);
  const { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor } = sdk;
  const exporter = options.exporter ?? new OTLPTraceExporter({ url: options.endpoint });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "kepler-model" }),
    spanProcessors: [options.exporter === undefined ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  // The OpenTelemetry API holds one provider per process and refuses a second one.
  if (!trace.setGlobalTracerProvider(provider)) {
    await provider.shutdown();
    throw new Error("tracing is already on");
  }
  otelContext.setGlobalContextManager(new CallContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return async () => {
    await provider.shutdown();
    trace.disable();
    otelContext.disable();
    propagation.disable();
  };
}

/** The OTLP endpoint from the config key, else OTEL_EXPORTER_OTLP_ENDPOINT's traces path; "" for none. */
export function otlpTracesEndpoint(configured: string, env: NodeJS.ProcessEnv): string {
  if (configured !== "") return configured;
  const base =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, "")}/v1/traces` : "");
  return base;
}

/** Client middleware: sends the active span's context as `traceparent` metadata. */
export function tracePropagationMiddleware() {
  return async function* propagate<Request, Response>(
    call: ClientMiddlewareCall<Request, Response>,
    options: CallOptions,
  ): AsyncGenerator<Response, Response | void, undefined> {
    // Without a provider there is no active span (the API's no-op context), so nothing is sent.
    if (trace.getSpan(otelContext.active()) === undefined) return yield* call.next(call.request, options);
    const metadata = Metadata(options.metadata);
    propagation.inject(otelContext.active(), metadata, { set: (carrier, key, value) => carrier.set(key, value) });
    return yield* call.next(call.request, { ...options, metadata });
  };
}
