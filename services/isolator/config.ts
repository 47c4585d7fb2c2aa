import { type ConfigOf, type ConfigSchema, type Flags, readConfig } from "../kit/config/config-schema.js";
import { hostKey, peerAddressKey, peerDeadlineKey, peerHealthIntervalKey, portKey } from "../kit/config/service-addresses.js";
import { securityConfigSchema } from "../kit/security/security-config.js";
import { overloadConfigSchema } from "../kit/config/overload-config.js";
import { workerThreadsKey } from "../kit/workers/worker-pool.js";

/** Settings of the isolator service: every key has a type, default, env var, flag and description. */
export const isolatorConfigSchema = {
  host: hostKey,
  port: portKey("isolator"),
  /** The trainer isolator reads AbsPower models from the registry. */
  registryAddress: peerAddressKey("registry"),
  /** BuildIdleProfile extracts the idle node tables through the extractor. */
  extractorAddress: peerAddressKey("extractor"),
  workerThreads: workerThreadsKey,
  ...securityConfigSchema,
  ...overloadConfigSchema,
  peerDeadlineMs: peerDeadlineKey,
  peerHealthIntervalMs: peerHealthIntervalKey,
} satisfies ConfigSchema;

export type IsolatorConfig = ConfigOf<typeof isolatorConfigSchema>;

/** Reads the isolator config from flags and environment, validated once. */
export function readIsolatorConfig(env: NodeJS.ProcessEnv, flags: Flags = {}): IsolatorConfig {
  return readConfig(isolatorConfigSchema, env, flags);
}
