import type { ConfigOf } from "../kit/config/config-schema.js";
import { peerAddressKey } from "../kit/config/service-addresses.js";
import { configReader, peerCallKeys, serviceConfigSchema } from "../kit/config/service-config.js";
import { workerThreadsKey } from "../kit/workers/worker-pool.js";

/** Settings of the isolator service: every key has a type, default, env var, flag and description. */
export const isolatorConfigSchema = serviceConfigSchema(
  "isolator",
  {
    /** The trainer isolator reads AbsPower models from the registry. */
    registryAddress: peerAddressKey("registry"),
    /** BuildIdleProfile extracts the idle node tables through the extractor. */
    extractorAddress: peerAddressKey("extractor"),
    workerThreads: workerThreadsKey,
  },
  peerCallKeys,
);

export type IsolatorConfig = ConfigOf<typeof isolatorConfigSchema>;

/** Reads the isolator config from flags and environment, validated once. */
export const readIsolatorConfig = configReader(isolatorConfigSchema);
