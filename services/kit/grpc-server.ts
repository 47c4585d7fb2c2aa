import { type CompatServiceDefinition, createServer } from "nice-grpc";
import { HealthDefinition, HealthServiceImpl, HealthState } from "nice-grpc-server-health";
import { createCallMiddleware } from "./call-middleware.js";
import { loadDescriptorRegistry } from "./descriptor-registry.js";
import type { Logger } from "./logger.js";
import { withTolerantDecoding } from "./malformed-request.js";
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, messageLimitOptions } from "./message-limits.js";
import { DEFAULT_PEER_HEALTH_INTERVAL_MS, type RequiredPeer, watchPeerHealth } from "./peer-health.js";
import { addReflection } from "./reflection.js";
import { compileRequestBounds } from "./request-bounds.js";
import { compileWireBounds } from "./wire-bounds.js";

/** A service to host: a generated ts-proto definition and its implementation. */
export interface HostedService {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- implementations are checked where they are written.
  definition: CompatServiceDefinition & { fullName: string } & Record<string, any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above.
  implementation: any;
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
  /** How long shutdown waits for in-flight calls before cancelling them. */
  shutdownGraceMs?: number;
  /**
   * Peers this service cannot work without: while one does not answer health, this service's own
   * service statuses (readiness) are NOT_SERVING; "" (liveness) stays SERVING, the process is fine.
   */
  requiredPeers?: readonly RequiredPeer[];
  /** Time between peer checks; DEFAULT_PEER_HEALTH_INTERVAL_MS when omitted, 0 turns them off. */
  peerHealthIntervalMs?: number;
}

/** A running server: the bound port and a graceful close. */
export interface ServerHandle {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  /** Stops accepting calls, lets in-flight calls finish (up to the grace period), then resolves. */
  close(): Promise<void>;
}

/**
 * Starts a gRPC server with our services, grpc.health.v1 (SERVING for each service and for ""),
 * reflection v1 + v1alpha, explicit message limits, request field bounds, error mapping and per-call logging.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<ServerHandle> {
  const logger = options.logger.child({ service: options.serviceName });
  const server = createServer(messageLimitOptions(options.limits ?? DEFAULT_MESSAGE_LIMITS));
  const names = options.services.map(({ definition }) => definition.fullName);
  const descriptors = loadDescriptorRegistry();
  const withCalls = server.with(createCallMiddleware(logger, compileRequestBounds(descriptors, names)));
  const wireBounds = compileWireBounds(descriptors, names);
  for (const { definition, implementation } of options.services) {
    withCalls.add(withTolerantDecoding(definition, wireBounds), implementation);
  }
  const health = HealthState();
  server.add(HealthDefinition, HealthServiceImpl(health));
  addReflection(server, names);

  const port = await server.listen(`${options.host}:${options.port}`);
  for (const name of ["", ...names]) health.setStatus("healthy", name);
  const address = `${options.host}:${port}`;
  logger.info({ address, services: names }, "listening");
  const peerIntervalMs = options.peerHealthIntervalMs ?? DEFAULT_PEER_HEALTH_INTERVAL_MS;
  const peerWatch =
    (options.requiredPeers ?? []).length > 0 && peerIntervalMs > 0
      ? watchPeerHealth(options.requiredPeers ?? [], {
          intervalMs: peerIntervalMs,
          logger,
          onChange: (unhealthy) => {
            for (const name of names) health.setStatus(unhealthy.length > 0 ? "unhealthy" : "healthy", name);
          },
        })
      : undefined;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      peerWatch?.stop();
      for (const name of ["", ...names]) health.setStatus("unhealthy", name);
      const graceMs = options.shutdownGraceMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const forced = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          logger.warn({ graceMs }, "in-flight calls still running after the grace period; cancelling them");
          server.forceShutdown();
          resolve();
        }, graceMs);
      });
      await Promise.race([server.shutdown(), forced]);
      clearTimeout(timer);
      logger.info({ address }, "stopped");
    })();
    return closing;
  };
  return { name: options.serviceName, address, port, close };
}
