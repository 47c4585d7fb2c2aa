import { type ConfigOf, type ConfigSchema, type Flags, readConfig } from "../kit/config/config-schema.js";
import { hostKey, peerAddressKey, peerDeadlineKey, peerHealthIntervalKey, portKey } from "../kit/config/service-addresses.js";
import { securityConfigSchema } from "../kit/security/security-config.js";
import { overloadConfigSchema } from "../kit/config/overload-config.js";

/** Settings of the pipeline service: every key has a type, default, env var, flag and description. */
export const pipelineConfigSchema = {
  host: hostKey,
  port: portKey("pipeline"),
  registryAddress: peerAddressKey("registry"),
  extractorAddress: peerAddressKey("extractor"),
  isolatorAddress: peerAddressKey("isolator"),
  trainerAddress: peerAddressKey("trainer"),
  ...securityConfigSchema,
  ...overloadConfigSchema,
  peerDeadlineMs: peerDeadlineKey,
  peerHealthIntervalMs: peerHealthIntervalKey,
} satisfies ConfigSchema;

export type PipelineConfig = ConfigOf<typeof pipelineConfigSchema>;

/** Reads the pipeline config from flags and environment, validated once. */
export function readPipelineConfig(env: NodeJS.ProcessEnv, flags: Flags = {}): PipelineConfig {
  return readConfig(pipelineConfigSchema, env, flags);
}
