import type * as grpc from "@grpc/grpc-js";
import { type CompatServiceDefinition, createServer } from "nice-grpc";
import { HealthDefinition, HealthServiceImpl, HealthState } from "nice-grpc-server-health";
import { authPolicy } from "../security/auth-policy.js";
import { type AdmissionPolicy, createAdmissionPolicy } from "../calls/admission.js";
import { type OverloadConfig, connectionOptions, overloadOf } from "../config/overload-config.js";
import { createCallPipeline } from "../calls/create-call-pipeline.js";
import { type DirectMethod, type DirectMethodDefinition, registerDirectMethod } from "./direct-methods.js";
import { createPipelineMiddleware } from "./nice-grpc-pipeline.js";
import { createHttpFront, type HttpRoute } from "./http-routes.js";
import { REQUEST_SHAPES } from "../../generated/request-shapes.js";
import type { CallObservation } from "../observe/call-observation.js";
import type { Logger } from "../observe/logger.js";
import { withTolerantDecoding } from "../checks/malformed-request.js";
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, messageLimitOptions } from "./message-limits.js";
import { listenWith, listenWithoutBinding } from "./grpc-js-server-capture.js";
import { listenFailure } from "./listen-failure.js";
import { admissionGate } from "./admission-gate.js";
import { INSECURE, type SecurityConfig } from "../security/security-config.js";
import { openAuditLog } from "../security/audit-log.js";
import { clientCertificateInterceptor } from "../security/client-certificate.js";
import { ServerTlsFiles, serverCredentials, serverTlsSettings } from "../security/tls-credentials.js";
import { serveInProcess } from "./in-process/in-process-calls.js";
import { listenSharedPort, type SharedPortHttpOptions, type SharedPortListener } from "./shared-port-listener.js";
import { DEFAULT_PEER_HEALTH_INTERVAL_MS, type RequiredPeer, watchPeerHealth } from "./peer-health.js";
import { addReflection } from "./reflection.js";
import { compileRequestBounds } from "../checks/request-bounds.js";
import { compileWireBounds } from "../checks/wire-bounds.js";

/** A service to host: a generated ts-proto definition and its implementation. */
export interface HostedService {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- implementations are checked where they are written.
  definition: CompatServiceDefinition & { fullName: string } & Record<string, any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above.
  implementation: any;
  /**
   * Hot methods served straight on grpc-js (direct-methods.ts), by the definition's method key (e.g.
   * "estimate"), through the same call pipeline as the rest.
   */
  direct?: Readonly<Record<string, DirectMethod>>;
}

export interface GrpcServerOptions {
  /** Short name for logs, e.g. "estimator". */
  serviceName: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
  services: HostedService[];
  limits?: MessageLimits;
  /** Bearer tokens and TLS (the shared security keys of every service); default: open, plaintext. */
  security?: SecurityConfig;
  /** How often TLS files are checked for rotation (default TLS_RELOAD_MS); tests shorten it. */
  tlsReloadMs?: number;
  /** How long shutdown waits for in-flight calls before cancelling them. */
  shutdownGraceMs?: number;
  /** Health status at start (default true: SERVING); change it later with the handle's setServing. */
  serving?: boolean;
  /** Also serve HTTP/1.1 routes on the same port (connections are routed by their first bytes). */
  http?: HttpFrontOptions;
  /** Admission limits, keepalive and connection age (the overload keys; each left out takes its default). */
  overload?: Partial<OverloadConfig>;
  /** An admission policy shared with another door (the estimator's socket); default: one from `overload`. */
  admission?: AdmissionPolicy;
  /** Whether calls are measured and traced; default: measured, not traced. */
  observation?: CallObservation;
  /**
   * Peers this service cannot work without: while one does not answer health, this service's own
   * service statuses (readiness) are NOT_SERVING; "" (liveness) stays SERVING, the process is fine.
   */
  requiredPeers?: readonly RequiredPeer[];
  /** Time between peer checks; DEFAULT_PEER_HEALTH_INTERVAL_MS when omitted, 0 turns them off. */
  peerHealthIntervalMs?: number;
}

/** HTTP/1.1 routes served beside gRPC, and the listener's timeouts. */
export type HttpFrontOptions = Omit<SharedPortHttpOptions, "handler"> & { routes: readonly HttpRoute[] };

/** A running server: the bound port and a graceful close. */
export interface ServerHandle {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  /** Stops accepting calls, lets in-flight calls finish (up to the grace period), then resolves. */
  close(): Promise<void>;
}

/** A server started by startGrpcServer: also sets its grpc.health.v1 status (for "" and each service). */
export interface GrpcServerHandle extends ServerHandle {
  /** SERVING or NOT_SERVING, e.g. while a service cannot do its work; ignored once closing. */
  setServing(serving: boolean): void;
}

/**
 * Starts a gRPC server with our services, grpc.health.v1 (SERVING for each service and for "" unless
 * options.serving is false or a required peer does not answer), reflection v1 + v1alpha, explicit message
 * limits, request field bounds, error mapping and per-call logging; with the security keys set,
 * bearer-token checks (before any other work) and TLS or mTLS.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServerHandle> {
  const logger = options.logger.child({ service: options.serviceName });
  const security = options.security ?? INSECURE;
  const auth = authPolicy(security, logger, options.host);
  const tlsSettings = serverTlsSettings(security);
  const tlsFiles =
    tlsSettings &&
    new ServerTlsFiles(
      tlsSettings,
      (error) => logger.error({ reason: error.message }, "TLS files not reloaded; keeping the previous ones"),
      options.tlsReloadMs,
    );
  const audit = openAuditLog(security.auditLog);
  // With mTLS and an audit log, a write call's verified client certificate is its "who" (client-certificate.ts).
  const clientCertificates = audit !== undefined && tlsFiles?.requireClientCertificate === true;
  const overload = overloadOf(options.overload ?? {});
  const admission = options.admission ?? createAdmissionPolicy(overload);
  const names = options.services.map(({ definition }) => definition.fullName);
  // Every call, whichever way it arrives (nice-grpc, a direct method, an in-process peer call, an HTTP
  // route), runs through this one pipeline.
  const pipeline = createCallPipeline({
    service: options.serviceName,
    logger,
    audit,
    clientCertificates,
    auth,
    checks: compileRequestBounds(REQUEST_SHAPES, names),
    admission,
    observation: options.observation,
  });
  const server = createServer({
    ...messageLimitOptions(options.limits ?? DEFAULT_MESSAGE_LIMITS),
    ...connectionOptions(overload),
    // grpc-js takes server interceptors among its options; nice-grpc passes them through.
    // The admission gate after the certificate interceptor, whose metadata the audit step reads.
    interceptors: [...(clientCertificates ? [clientCertificateInterceptor] : []), admissionGate(pipeline, admission)],
  });
  const piped = server.with(createPipelineMiddleware(pipeline));
  const wireBounds = compileWireBounds(REQUEST_SHAPES, names);
  const direct: Array<{ fullName: string; definition: DirectMethodDefinition; method: DirectMethod }> = [];
  for (const { definition, implementation, direct: directMethods = {} } of options.services) {
    const tolerant = withTolerantDecoding(definition, wireBounds);
    for (const [key, method] of Object.entries(directMethods)) {
      direct.push({ fullName: definition.fullName, definition: tolerant.methods[key], method });
    }
    const rest = withoutMethods(tolerant, Object.keys(directMethods));
    // grpc-js refuses a service without methods: one served wholly direct is registered only there.
    if (Object.keys(rest.methods).length > 0) piped.add(rest, implementation);
  }
  let grpcServer: grpc.Server | undefined;
  const registerDirect = (server: grpc.Server) => {
    grpcServer = server;
    for (const entry of direct) registerDirectMethod(server, entry.fullName, entry.definition, entry.method, pipeline);
  };
  const health = HealthState();
  piped.add(HealthDefinition, HealthServiceImpl(health));
  addReflection(piped, names);

  let shared: SharedPortListener | undefined;
  let port: number;
  if (options.http === undefined) {
    const bindAddress = `${options.host}:${options.port}`;
    port = await listenWith(server, bindAddress, serverCredentials(tlsFiles), registerDirect).catch((error: unknown) => {
      throw listenFailure(`${options.serviceName} gRPC`, bindAddress, error);
    });
  } else {
    // grpc-js binds nothing; the front socket owns the port (and terminates TLS) and injects gRPC connections.
    const { injector } = await listenWithoutBinding(server, registerDirect);
    try {
      shared = await listenSharedPort({
        host: options.host,
        port: options.port,
        injector,
        http: { ...options.http, handler: createHttpFront(options.http.routes, pipeline) },
        tls: tlsFiles,
        logger,
      });
    } catch (error) {
      server.forceShutdown();
      throw listenFailure(`${options.serviceName} gRPC and HTTP`, `${options.host}:${options.port}`, error);
    }
    port = shared.port;
  }
  // Plaintext servers also take this process's peer calls directly (in-process-calls.ts).
  const inProcess =
    tlsFiles === undefined && grpcServer !== undefined ? serveInProcess(options.host, port, grpcServer) : undefined;

  // Readiness of the hosted services: the owner's verdict (setServing) and every required peer answering.
  // "" is liveness: SERVING while the process runs, so an orchestrator does not restart it for a peer's outage.
  let closing: Promise<void> | undefined;
  let ownServing = options.serving ?? true;
  let peersHealthy = true;
  const applyHealth = () => {
    if (closing !== undefined) return;
    health.setStatus("healthy", "");
    for (const name of names) health.setStatus(ownServing && peersHealthy ? "healthy" : "unhealthy", name);
  };
  const setServing = (serving: boolean) => {
    ownServing = serving;
    applyHealth();
  };
  applyHealth();
  const peerIntervalMs = options.peerHealthIntervalMs ?? DEFAULT_PEER_HEALTH_INTERVAL_MS;
  const peerWatch =
    (options.requiredPeers ?? []).length > 0 && peerIntervalMs > 0
      ? watchPeerHealth(options.requiredPeers ?? [], {
          intervalMs: peerIntervalMs,
          logger,
          onChange: (unhealthy) => {
            peersHealthy = unhealthy.length === 0;
            applyHealth();
          },
        })
      : undefined;
  const address = `${options.host}:${port}`;
  logger.info(
    {
      address,
      services: names,
      http: options.http !== undefined,
      tls: tlsFiles === undefined ? "off" : tlsFiles.requireClientCertificate ? "mtls" : "tls",
      auth:
        auth === undefined
          ? "off"
          : auth.writesRefused !== undefined
            ? "no tokens: writes refused"
            : auth.authReads
              ? "reads and writes"
              : "writes",
      tokens: auth?.tokens().tokens.map((token) => `${token.name}:${token.role}`),
    },
    "listening",
  );

  const close = (): Promise<void> => {
    closing ??= (async () => {
      peerWatch?.stop();
      inProcess?.stop();
      for (const name of ["", ...names]) health.setStatus("unhealthy", name);
      const graceMs = options.shutdownGraceMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.warn({ graceMs }, "in-flight calls still running after the grace period; cancelling them");
          server.forceShutdown();
          inProcess?.cancelAll();
          resolve();
        }, graceMs);
      });
      const finished = Promise.all([server.shutdown(), inProcess?.drained()]);
      await Promise.all([Promise.race([finished, forced]), shared?.close(graceMs)]);
      clearTimeout(timer);
      tlsFiles?.close();
      audit?.close();
      logger.info({ address }, "stopped");
    })();
    return closing;
  };
  return { name: options.serviceName, address, port, close, setServing };
}

// The definition without the given methods (served directly instead).
function withoutMethods<D extends HostedService["definition"]>(definition: D, keys: readonly string[]): D {
  if (keys.length === 0) return definition;
  const methods = { ...definition.methods };
  for (const key of keys) delete methods[key];
  return { ...definition, methods };
}
