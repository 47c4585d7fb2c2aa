// One inbound call, whatever door it came in by (gRPC through nice-grpc or straight on grpc-js, an
// in-process peer call, an HTTP route, the estimator's unix socket): the description every interceptor
// of the call pipeline reads and annotates. One object per call, with fixed fields, so the hot path
// allocates nothing else.
import type { Logger } from "../observe/logger.js";
import type { ClientCertificate } from "../security/client-certificate.js";
import type { RpcAccess } from "../security/rpc-access.js";
import type { CallFailure } from "./error-table.js";

export type Transport = "grpc" | "http" | "socket";

/** Per-method metric children a metrics interceptor binds once (observe/call-metrics.ts). */
export interface BoundCallMetrics {
  started(): void;
  ended(call: InboundCall): void;
}

export abstract class InboundCall {
  /** Process-wide number of the call, for its log lines (set by the logging interceptor). */
  requestId = 0;
  readonly startedMs = performance.now();
  /** Set when the call failed (call-pipeline.ts); undefined while running and after success. */
  failure: CallFailure | undefined = undefined;
  /** HTTP: the status sent. */
  httpStatus = 0;
  /** Interceptor state: metrics bound for this method, trace span and context, admission, deadline. */
  metrics: BoundCallMetrics | undefined = undefined;
  span: { end(): void } | undefined = undefined;
  traceContext: unknown = undefined;
  traceId: string | undefined = undefined;
  admitted = false;
  /** Admission: the pool the call holds a slot of, and the client address counted, if any (admission.ts). */
  admissionPool = 0;
  admissionClient: string | undefined = undefined;
  /** A streaming call (set by the door before the pipeline starts): admitted against the stream limits. */
  streaming = false;
  deadlineMs = 0;
  /** The name of the bearer token the auth step accepted, if any (for the audit log). */
  caller: string | undefined = undefined;
  logger: Logger | undefined = undefined;

  constructor(
    readonly transport: Transport,
    /** What is called, for logs and auth messages: an RPC path, "POST /model", "socket". */
    readonly method: string,
    /** The metric label: the RPC path, the HTTP route, the socket's name. */
    readonly label: string,
    /** What the call needs when bearer tokens are configured. */
    readonly access: RpcAccess,
  ) {}

  /** A request header (gRPC metadata), e.g. "authorization", "traceparent". */
  abstract header(name: string): string | undefined;
  /** The names of the request's headers (for trace propagation). */
  abstract headerNames(): string[];
  /** The caller's address, for logs. */
  abstract peer(): string;
  /**
   * The TLS client certificate the server verified (mTLS), for the audit log; undefined when there is none
   * or the door cannot tell. Trusted only on a server that asks for client certificates.
   */
  clientCertificate(): ClientCertificate | undefined {
    return undefined;
  }
}
