import { type ConfigOf, type ConfigSchema, type Flags, readConfig } from "../kit/config-schema.js";
import { hostKey, peerAddressKey, portKey } from "../kit/service-addresses.js";

/** Settings of the estimator service: every key has a type, default, env var, flag and description. */
export const estimatorConfigSchema = {
  host: hostKey,
  port: portKey("estimator"),
  registryAddress: peerAddressKey("registry"),
} satisfies ConfigSchema;

export type EstimatorConfig = ConfigOf<typeof estimatorConfigSchema>;

/** Reads the estimator config from flags and environment, validated once. */
export function readEstimatorConfig(env: NodeJS.ProcessEnv, flags: Flags = {}): EstimatorConfig {
  return readConfig(estimatorConfigSchema, env, flags);
}
