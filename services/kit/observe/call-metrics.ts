// The metrics step of the call pipeline: every call is counted and timed by its transport's metric,
// labelled from the error table's row (gRPC code name, HTTP status, socket outcome), refused calls too.
// Label children are bound once per method, so a call costs a map lookup and no allocation.
import { Status } from "nice-grpc";
import type { CallInterceptor } from "../calls/call-pipeline.js";
import type { BoundCallMetrics, InboundCall } from "../calls/inbound-call.js";
import { counter, gauge, histogram } from "./metrics.js";

const rpcRequests = counter("kepler_model_rpc_requests_total", "gRPC calls by service, method and status code.", [
  "service",
  "method",
  "code",
]);
const rpcDuration = histogram("kepler_model_rpc_duration_seconds", "gRPC call latency in seconds.", ["service", "method"]);
const rpcInFlight = gauge("kepler_model_rpc_in_flight", "gRPC calls being served.", ["service", "method"]);

const httpRequests = counter("kepler_model_http_requests_total", "HTTP requests by service, route and status.", [
  "service",
  "route",
  "status",
]);
const httpDuration = histogram("kepler_model_http_duration_seconds", "HTTP request latency in seconds.", ["service", "route"]);

const socketRequests = counter("kepler_model_socket_requests_total", "Unix-socket requests by service and outcome.", [
  "service",
  "outcome",
]);
const socketDuration = histogram("kepler_model_socket_duration_seconds", "Unix-socket request latency in seconds.", ["service"]);

const secondsSince = (call: InboundCall) => (performance.now() - call.startedMs) / 1000;

class RpcMethodMetrics implements BoundCallMetrics {
  private readonly inFlight: ReturnType<typeof rpcInFlight.labels>;
  private readonly duration: ReturnType<typeof rpcDuration.labels>;
  private readonly ok: ReturnType<typeof rpcRequests.labels>;

  constructor(
    private readonly service: string,
    private readonly method: string,
  ) {
    this.inFlight = rpcInFlight.labels(service, method);
    this.duration = rpcDuration.labels(service, method);
    this.ok = rpcRequests.labels(service, method, "OK");
  }

  started(): void {
    this.inFlight.inc();
  }

  ended(call: InboundCall): void {
    this.inFlight.dec();
    this.duration.observe(secondsSince(call));
    const failure = call.failure;
    if (failure === undefined) this.ok.inc();
    else rpcRequests.labels(this.service, this.method, Status[failure.row.grpc] ?? "UNKNOWN").inc();
  }
}

class HttpRouteMetrics implements BoundCallMetrics {
  constructor(
    private readonly service: string,
    private readonly route: string,
  ) {}

  started(): void {}

  ended(call: InboundCall): void {
    // The status sent; for a failure answered by the transport, its row's.
    const status = call.httpStatus !== 0 ? call.httpStatus : (call.failure?.row.http ?? 200);
    httpRequests.inc({ service: this.service, route: this.route, status: String(status) });
    httpDuration.observe({ service: this.service, route: this.route }, secondsSince(call));
  }
}

class SocketMetrics implements BoundCallMetrics {
  constructor(private readonly service: string) {}

  started(): void {}

  ended(call: InboundCall): void {
    socketRequests.inc({ service: this.service, outcome: call.failure?.row.socket ?? "ok" });
    socketDuration.observe({ service: this.service }, secondsSince(call));
  }
}

/** Measures every call of `service` with its transport's metric. */
export function metricsInterceptor(service: string): CallInterceptor {
  const bound = new Map<string, BoundCallMetrics>();
  const bind = (call: InboundCall): BoundCallMetrics => {
    const key = `${call.transport} ${call.label}`;
    let metrics = bound.get(key);
    if (metrics === undefined) {
      metrics =
        call.transport === "grpc"
          ? new RpcMethodMetrics(service, call.label)
          : call.transport === "http"
            ? new HttpRouteMetrics(service, call.label)
            : new SocketMetrics(service);
      bound.set(key, metrics);
    }
    return metrics;
  };
  return {
    enter(call) {
      const metrics = call.transport === "grpc" ? (bound.get(call.label) ?? bindRpc(call)) : bind(call);
      call.metrics = metrics;
      metrics.started();
    },
    exit(call) {
      call.metrics?.ended(call);
      call.metrics = undefined;
    },
  };
  // gRPC calls, the hot path, are keyed by their path alone (no string built per call).
  function bindRpc(call: InboundCall): BoundCallMetrics {
    const metrics = new RpcMethodMetrics(service, call.label);
    bound.set(call.label, metrics);
    return metrics;
  }
}
