import type { ConfigSchema, Flags } from "./config-schema.js";
import type { ServerHandle } from "../transport/grpc-server.js";
import type { CallObservation } from "../observe/call-observation.js";
import type { Logger } from "../observe/logger.js";
import type { ServiceName } from "./service-addresses.js";

/** What a service's start receives besides its config: the process's logger and how its calls are observed. */
export interface ServiceDeps {
  logger: Logger;
  /** Default: measured, not traced (DEFAULT_CALL_OBSERVATION). */
  observation?: CallObservation;
}

/** What every service's main.ts offers the launcher: how to read its config and how to start it. */
export interface ServiceLauncher<Config = unknown> {
  readonly name: ServiceName;
  /** Services this one calls; the all-in-one launcher starts them first and points this one at them. */
  readonly peers: readonly ServiceName[];
  readonly configSchema: ConfigSchema;
  readConfig(env: NodeJS.ProcessEnv, flags: Flags): Config;
  start(config: Config, deps: ServiceDeps): Promise<ServerHandle>;
}
