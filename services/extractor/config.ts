import type { ConfigOf } from "../kit/config/config-schema.js";
import { configReader, serviceConfigSchema } from "../kit/config/service-config.js";
import { DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES } from "../prometheus/prometheus-client.js";
import { checkAllowlistEntries } from "../prometheus/url-allowlist.js";
import { workerThreadsKey } from "../kit/workers/worker-pool.js";

/** Settings of the extractor service: every key has a type, default, env var, flag and description. */
export const extractorConfigSchema = serviceConfigSchema("extractor", {
  prometheusTimeoutMs: {
    type: "integer",
    default: 60_000,
    env: "KEPLER_MODEL_PROMETHEUS_TIMEOUT_MS",
    flag: "prometheus-timeout-ms",
    description: "Timeout of each Prometheus HTTP request (label discovery, one query_range sub-range), in ms.",
    check: (value: number) =>
      Number.isInteger(value) && value > 0 ? undefined : `expected a positive number of ms, got ${value}`,
  },
  prometheusMaxResponseBytes: {
    type: "integer",
    default: DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES,
    env: "KEPLER_MODEL_PROMETHEUS_MAX_RESPONSE_BYTES",
    flag: "prometheus-max-response-bytes",
    description:
      "Largest answer of one Prometheus HTTP request (one query_range sub-range of at most 11,000 points per series), in bytes; a larger one is cut off and the call gets RESOURCE_EXHAUSTED (default 128 MiB: ~400 series, parsed into ~3.4 times its size of heap).",
    check: (value: number) =>
      Number.isInteger(value) && value > 0 ? undefined : `expected a positive number of bytes, got ${value}`,
  },
  prometheusAllowlist: {
    type: "list",
    default: ["http://127.0.0.1:9090", "http://localhost:9090"] as string[],
    env: "KEPLER_MODEL_PROMETHEUS_ALLOWLIST",
    flag: "prometheus-allowlist",
    description:
      "Prometheus URLs a request may name as base_url (ExtractFromPrometheus, QueryPrometheus, ListValidFeatureGroups, RunPipeline, online pipelines), comma-separated prefixes scheme://host[:port][/path]; a URL is allowed when it equals an entry or extends it at a path boundary, compared after normalisation (lowercase, default ports, no user info, no `..`). `*` allows any URL: unsafe, any client can then make the server fetch any address (SSRF).",
    check: checkAllowlistEntries,
  },
  workerThreads: workerThreadsKey,
});

export type ExtractorConfig = ConfigOf<typeof extractorConfigSchema>;

/** Reads the extractor config from flags and environment, validated once. */
export const readExtractorConfig = configReader(extractorConfigSchema);
