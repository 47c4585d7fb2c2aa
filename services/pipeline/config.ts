import type { ConfigOf } from "../kit/config/config-schema.js";
import { peerAddressKey } from "../kit/config/service-addresses.js";
import { configReader, peerCallKeys, serviceConfigSchema } from "../kit/config/service-config.js";

/** Settings of the pipeline service: every key has a type, default, env var, flag and description. */
export const pipelineConfigSchema = serviceConfigSchema(
  "pipeline",
  {
    registryAddress: peerAddressKey("registry"),
    extractorAddress: peerAddressKey("extractor"),
    isolatorAddress: peerAddressKey("isolator"),
    trainerAddress: peerAddressKey("trainer"),
  },
  peerCallKeys,
);

export type PipelineConfig = ConfigOf<typeof pipelineConfigSchema>;

/** Reads the pipeline config from flags and environment, validated once. */
export const readPipelineConfig = configReader(pipelineConfigSchema);
