import { type CompatServiceDefinition, createServer } from "nice-grpc";
import { HealthDefinition, HealthServiceImpl, HealthState } from "nice-grpc-server-health";
import { createCallMiddleware } from "./call-middleware.js";
import type { Logger } from "./logger.js";
import { withTolerantDecoding } from "./malformed-request.js";
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, messageLimitOptions } from "./message-limits.js";
import { listenWithoutBinding } from "./grpc-js-server-capture.js";
import { addReflection } from "./reflection.js";
import { listenSharedPort, type SharedPortHttpOptions, type SharedPortListener } from "./shared-port-listener.js";

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
  /** Also serve HTTP/1.1 on the same port (connections are routed by their first bytes). */
  http?: SharedPortHttpOptions;
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
 * reflection v1 + v1alpha, explicit message limits, error mapping and per-call logging.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<ServerHandle> {
  const logger = options.logger.child({ service: options.serviceName });
  const server = createServer(messageLimitOptions(options.limits ?? DEFAULT_MESSAGE_LIMITS));
  const withCalls = server.with(createCallMiddleware(logger));
  for (const { definition, implementation } of options.services) {
    withCalls.add(withTolerantDecoding(definition), implementation);
  }
  const health = HealthState();
  server.add(HealthDefinition, HealthServiceImpl(health));
  const names = options.services.map(({ definition }) => definition.fullName);
  addReflection(server, names);

  let shared: SharedPortListener | undefined;
  let port: number;
  if (options.http === undefined) {
    port = await server.listen(`${options.host}:${options.port}`);
  } else {
    // grpc-js binds nothing; the front socket owns the port and injects gRPC connections.
    const { injector } = await listenWithoutBinding(server);
    try {
      shared = await listenSharedPort({ host: options.host, port: options.port, injector, http: options.http, logger });
    } catch (error) {
      server.forceShutdown();
      throw error;
    }
    port = shared.port;
  }
  for (const name of ["", ...names]) health.setStatus("healthy", name);
  const address = `${options.host}:${port}`;
  logger.info({ address, services: names, http: options.http !== undefined }, "listening");

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
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
      await Promise.all([Promise.race([server.shutdown(), forced]), shared?.close(graceMs)]);
      clearTimeout(timer);
      logger.info({ address }, "stopped");
    })();
    return closing;
  };
  return { name: options.serviceName, address, port, close };
}
