import type { ConfigKey, ConfigOf } from "../kit/config/config-schema.js";
import { modelPathKey } from "../kit/config/model-path-key.js";
import { configReader, serviceConfigSchema } from "../kit/config/service-config.js";
import { s3ConfigSchema } from "../object-store/index.js";
import { checkStorageUrl } from "./storage/backends.js";
import { lifecycleConfigSchema } from "./lifecycle-config.js";

const rescanIntervalKey: ConfigKey<number> = {
  type: "integer",
  default: 5000,
  env: "KEPLER_MODEL_REGISTRY_RESCAN_MS",
  flag: "registry-rescan-ms",
  description: "How often the registry re-reads MODEL_PATH for models written by other processes, in ms (0: only at start).",
  check: (value) => (value >= 0 ? undefined : `expected a non-negative number of milliseconds, got ${value}`),
};

const sourcePipelinesKey: ConfigKey<string[]> = {
  type: "list",
  default: [],
  env: "KEPLER_MODEL_SOURCE_PIPELINES",
  flag: "source-pipelines",
  description:
    "Pin the pipeline that serves an energy source when a request names none, as source=pipeline pairs (e.g. rapl-sysfs=ec2-0.7.11,acpi=specpower-0.7.11); default: every pipeline holding models of the source is searched and the best model wins (matched node type, then lowest MAE, ties by pipeline name).",
  check: (value) => {
    const bad = value.find((pair) => !/^[^=]+=[^=]+$/.test(pair));
    return bad === undefined ? undefined : `expected source=pipeline pairs, got "${bad}"`;
  },
};

const modelStoreKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_STORE",
  flag: "model-store",
  description:
    "Shared model store, s3://bucket/prefix (same layout as MODEL_PATH; registries over one bucket see each other's models); MODEL_PATH then is this registry's cache of it. Empty: the local folder alone.",
  check: (value) => {
    if (value === "") return undefined;
    try {
      checkStorageUrl(value, "--model-store");
      return undefined;
    } catch (error) {
      return (error as { reason?: string }).reason ?? (error as Error).message;
    }
  },
};

const storePollKey: ConfigKey<number> = {
  type: "integer",
  default: 10_000,
  env: "KEPLER_MODEL_STORE_POLL_MS",
  flag: "model-store-poll-ms",
  description:
    "How often the registry lists the shared model store for models published by other registries, in ms (0: only at start).",
  check: (value) => (value >= 0 ? undefined : `expected a non-negative number of milliseconds, got ${value}`),
};

const MIB = 1024 * 1024;
const positive = (value: number) => (value > 0 ? undefined : `expected a positive integer, got ${value}`);

/** Bounds on what clients upload (PublishModel, ImportPipeline): checked before anything is inflated. */
export const registryLimitKeys = {
  maxUploadBytes: {
    type: "integer",
    default: 256 * MIB,
    env: "KEPLER_MODEL_REGISTRY_MAX_UPLOAD_BYTES",
    flag: "registry-max-upload-bytes",
    description:
      "Largest archive a PublishModel or ImportPipeline stream may carry, in bytes; the registry stops reading past it (default 256 MiB).",
    check: positive,
  } satisfies ConfigKey<number>,
  zipMaxEntries: {
    type: "integer",
    default: 10_000,
    env: "KEPLER_MODEL_REGISTRY_ZIP_MAX_ENTRIES",
    flag: "registry-zip-max-entries",
    description: "Most entries an uploaded zip may hold.",
    check: positive,
  } satisfies ConfigKey<number>,
  zipMaxUncompressedBytes: {
    type: "integer",
    default: 1024 * MIB,
    env: "KEPLER_MODEL_REGISTRY_ZIP_MAX_UNCOMPRESSED_BYTES",
    flag: "registry-zip-max-uncompressed-bytes",
    description: "Most bytes an uploaded zip may inflate to, per entry and in total (default 1 GiB).",
    check: positive,
  } satisfies ConfigKey<number>,
  zipMaxCompressionRatio: {
    type: "integer",
    default: 200,
    env: "KEPLER_MODEL_REGISTRY_ZIP_MAX_RATIO",
    flag: "registry-zip-max-ratio",
    description: "Highest uncompressed/compressed size ratio of an uploaded zip and of each entry over 64 KiB (zip bombs).",
    check: positive,
  } satisfies ConfigKey<number>,
};

const httpHeadersTimeoutKey: ConfigKey<number> = {
  type: "integer",
  default: 10_000,
  env: "KEPLER_MODEL_REGISTRY_HTTP_HEADERS_TIMEOUT_MS",
  flag: "registry-http-headers-timeout-ms",
  description:
    "On the registry port, a connection that sends neither a gRPC preface nor a complete HTTP request head within this many ms is closed.",
  check: (value) => (value > 0 ? undefined : `expected a positive number of milliseconds, got ${value}`),
};

const httpRequestTimeoutKey: ConfigKey<number> = {
  type: "integer",
  default: 30_000,
  env: "KEPLER_MODEL_REGISTRY_HTTP_REQUEST_TIMEOUT_MS",
  flag: "registry-http-request-timeout-ms",
  description:
    "A whole HTTP request (POST /model, GET /best-models) must arrive within this many ms, else the connection is closed.",
  check: (value) => (value > 0 ? undefined : `expected a positive number of milliseconds, got ${value}`),
};

/** Settings of the registry service: every key has a type, default, env var, flag and description. */
export const registryConfigSchema = serviceConfigSchema(
  "registry",
  {
    modelPath: modelPathKey,
    modelStore: modelStoreKey,
    modelStorePollMs: storePollKey,
    ...s3ConfigSchema,
    rescanIntervalMs: rescanIntervalKey,
    sourcePipelines: sourcePipelinesKey,
    ...registryLimitKeys,
    ...lifecycleConfigSchema,
  },
  { httpHeadersTimeoutMs: httpHeadersTimeoutKey, httpRequestTimeoutMs: httpRequestTimeoutKey },
);

export type RegistryConfig = ConfigOf<typeof registryConfigSchema>;

/** Reads the registry config from flags and environment, validated once. */
export const readRegistryConfig = configReader(registryConfigSchema);

/** `source=pipeline` pairs as a map. */
export function sourcePipelineMap(pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(pairs.map((pair) => pair.split("=", 2).map((part) => part.trim()) as [string, string]));
}
