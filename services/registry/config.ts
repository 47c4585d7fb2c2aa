import { type ConfigOf, type ConfigSchema, type Flags, readConfig } from "../kit/config-schema.js";
import { modelPathKey } from "../kit/model-path-key.js";
import { hostKey, portKey } from "../kit/service-addresses.js";

/** Settings of the registry service: every key has a type, default, env var, flag and description. */
export const registryConfigSchema = {
  host: hostKey,
  port: portKey("registry"),
  modelPath: modelPathKey,
} satisfies ConfigSchema;

export type RegistryConfig = ConfigOf<typeof registryConfigSchema>;

/** Reads the registry config from flags and environment, validated once. */
export function readRegistryConfig(env: NodeJS.ProcessEnv, flags: Flags = {}): RegistryConfig {
  return readConfig(registryConfigSchema, env, flags);
}
