// What every service's config.ts shares: where it listens, the security and overload keys every server
// reads, and one way to read them. A service's config.ts adds only its own keys.
import { securityConfigSchema } from "../security/security-config.js";
import { type ConfigOf, type ConfigSchema, type Flags, readConfig } from "./config-schema.js";
import { overloadConfigSchema } from "./overload-config.js";
import { hostKey, peerDeadlineKey, peerHealthIntervalKey, portKey, type ServiceName } from "./service-addresses.js";

/** The keys of a service that calls peers: each call's deadline, and how often the peers' health is checked. */
export const peerCallKeys = { peerDeadlineMs: peerDeadlineKey, peerHealthIntervalMs: peerHealthIntervalKey };

/**
 * A service's config schema: host and port, the service's own keys, the security and overload keys, then
 * `lastKeys` (after the shared ones, so that flag listings keep their order).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no last keys unless given.
export function serviceConfigSchema<Own extends ConfigSchema, Last extends ConfigSchema = {}>(
  service: ServiceName,
  ownKeys: Own,
  lastKeys: Last = {} as Last,
) {
  return { host: hostKey, port: portKey(service), ...ownKeys, ...securityConfigSchema, ...overloadConfigSchema, ...lastKeys };
}

/** The reader of a config schema: flag beats environment beats default, validated once (readConfig). */
export function configReader<S extends ConfigSchema>(schema: S): (env: NodeJS.ProcessEnv, flags?: Flags) => ConfigOf<S> {
  return (env, flags = {}) => readConfig(schema, env, flags);
}
