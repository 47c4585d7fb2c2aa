import { type ConfigOf, type ConfigSchema, type Flags, readConfig } from "../kit/config-schema.js";
import { hostKey, portKey } from "../kit/service-addresses.js";

/** Settings of the extractor service: every key has a type, default, env var, flag and description. */
export const extractorConfigSchema = {
  host: hostKey,
  port: portKey("extractor"),
} satisfies ConfigSchema;

export type ExtractorConfig = ConfigOf<typeof extractorConfigSchema>;

/** Reads the extractor config from flags and environment, validated once. */
export function readExtractorConfig(env: NodeJS.ProcessEnv, flags: Flags = {}): ExtractorConfig {
  return readConfig(extractorConfigSchema, env, flags);
}
