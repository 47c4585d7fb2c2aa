// How every service's main.ts starts its gRPC server: the options its config gives (where to listen,
// security, overload, peer checks), and freeing what the service opened for the server (worker threads,
// peer channels) when the server closes or fails to start.
import { type OverloadConfig, overloadOf } from "../config/overload-config.js";
import type { ServiceDeps } from "../config/service-launcher.js";
import { type SecurityConfig, securityOf } from "../security/security-config.js";
import { type GrpcServerHandle, type GrpcServerOptions, type ServerHandle, startGrpcServer } from "./grpc-server.js";

/** The server settings every service's config holds (security and overload keys may be left out: defaults). */
export interface ServiceServerConfig extends Partial<SecurityConfig>, Partial<OverloadConfig> {
  readonly host: string;
  readonly port: number;
  /** Services with required peers; left out: the default interval. */
  readonly peerHealthIntervalMs?: number;
}

/** The options of startGrpcServer that come from a service's config and its deps. */
export function serviceServerOptions(serviceName: string, config: ServiceServerConfig, deps: ServiceDeps) {
  return {
    serviceName,
    host: config.host,
    port: config.port,
    logger: deps.logger,
    observation: deps.observation,
    security: securityOf(config),
    overload: overloadOf(config),
    peerHealthIntervalMs: config.peerHealthIntervalMs,
  } satisfies Partial<GrpcServerOptions>;
}

/**
 * Starts a service's gRPC server; `release` frees what the service opened for it: after the server has
 * closed, or at once when it fails to start (so a failed start leaves no worker thread or channel behind).
 */
export async function startServiceServer(options: GrpcServerOptions, release: () => Promise<void> | void): Promise<ServerHandle> {
  let server: GrpcServerHandle;
  try {
    server = await startGrpcServer(options);
  } catch (error) {
    await release();
    throw error;
  }
  return {
    ...server,
    close: async () => {
      await server.close();
      await release();
    },
  };
}
