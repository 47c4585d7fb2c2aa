import type { ConfigKey, ConfigOf } from "../kit/config/config-schema.js";
import { DEFAULT_MODEL_CACHE_ENTRIES } from "./domain/model-cache.js";
import { peerAddressKey } from "../kit/config/service-addresses.js";
import { configReader, serviceConfigSchema } from "../kit/config/service-config.js";
import { DEFAULT_ESTIMATOR_SOCKET_LIMITS } from "./estimator-socket-limits.js";

const machineSpecKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_MACHINE_SPEC",
  flag: "machine-spec",
  description:
    "JSON file with this host's machine spec ({processor, cores, chips, memory, frequency}, the reference's spec.json), used when a request has none; empty: discover it from /proc and /sys.",
};

const estimatorSocketKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_ESTIMATOR_SOCKET",
  flag: "estimator-socket",
  description:
    "Unix socket path for Kepler's estimator sidecar (the reference's protocol: one JSON PowerRequest per connection; Kepler dials /tmp/estimator.sock); empty: off.",
  // Linux's sockaddr_un holds 108 bytes including the terminating NUL; a longer path fails to bind.
  check: (path) =>
    Buffer.byteLength(path) > 107 ? `a unix socket path is at most 107 bytes, got ${Buffer.byteLength(path)}` : undefined,
};

const modelCacheEntriesKey: ConfigKey<number> = {
  type: "integer",
  default: DEFAULT_MODEL_CACHE_ENTRIES,
  env: "KEPLER_MODEL_ESTIMATOR_CACHE_ENTRIES",
  flag: "estimator-cache-entries",
  description:
    "Most distinct model queries (features, source, output type, trainer, filter, pipeline, machine) the estimator keeps a loaded model for; the least recently used is evicted.",
  check: (value) => (value > 0 ? undefined : `expected a positive integer, got ${value}`),
};

const intervalCoverageKey: ConfigKey<number> = {
  type: "integer",
  default: 90,
  env: "KEPLER_MODEL_INTERVAL_COVERAGE_PERCENT",
  flag: "interval-coverage-percent",
  description:
    "Nominal coverage, in percent, of the prediction intervals Estimate returns when a request sets no interval_level (split conformal from each model's held-out residuals).",
  check: (value) => (value >= 1 && value <= 99 ? undefined : `expected 1 to 99, got ${value}`),
};

const registryDeadlineKey: ConfigKey<number> = {
  type: "integer",
  default: 5000,
  env: "KEPLER_MODEL_ESTIMATE_REGISTRY_DEADLINE_MS",
  flag: "estimate-registry-deadline-ms",
  description:
    "Deadline in ms of the estimator's registry calls made while answering an Estimate (SelectModel, GetModelArchive, GetModelWeights); on expiry the Estimate fails UNAVAILABLE instead of waiting.",
  check: (value) => (Number.isInteger(value) && value >= 100 ? undefined : `expected at least 100 ms, got ${value}`),
};

const socketMaxConnectionsKey: ConfigKey<number> = {
  type: "integer",
  default: DEFAULT_ESTIMATOR_SOCKET_LIMITS.maxConnections,
  env: "KEPLER_MODEL_ESTIMATOR_SOCKET_MAX_CONNECTIONS",
  flag: "estimator-socket-max-connections",
  description:
    "Connections the Kepler socket holds at once; one more evicts the oldest connection still sending its request, so stalled clients cannot lock Kepler out.",
  check: (value) => (value >= 1 ? undefined : `expected at least 1, got ${value}`),
};

const socketRequestDeadlineKey: ConfigKey<number> = {
  type: "integer",
  default: DEFAULT_ESTIMATOR_SOCKET_LIMITS.requestDeadlineMs,
  env: "KEPLER_MODEL_ESTIMATOR_SOCKET_REQUEST_MS",
  flag: "estimator-socket-request-ms",
  description:
    "A whole Kepler socket request must arrive within this many ms of its first byte (however slowly it trickles), else the connection is closed.",
  check: (value) => (value >= 10 ? undefined : `expected at least 10 ms, got ${value}`),
};

const modelPublicKeysKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_PUBLIC_KEYS_FILE",
  flag: "model-public-keys-file",
  description:
    "PEM file of one or more ed25519 public keys: every model archive must be signed by one of them (the registry's --model-signing-key-file) and is refused before use otherwise; empty: not checked.",
};

/** Settings of the estimator service: every key has a type, default, env var, flag and description. */
export const estimatorConfigSchema = serviceConfigSchema(
  "estimator",
  {
    registryAddress: peerAddressKey("registry"),
    machineSpecFile: machineSpecKey,
    estimatorSocket: estimatorSocketKey,
    socketMaxConnections: socketMaxConnectionsKey,
    socketRequestDeadlineMs: socketRequestDeadlineKey,
    modelCacheEntries: modelCacheEntriesKey,
  },
  {
    registryDeadlineMs: registryDeadlineKey,
    intervalCoveragePercent: intervalCoverageKey,
    modelPublicKeysFile: modelPublicKeysKey,
  },
);

export type EstimatorConfig = ConfigOf<typeof estimatorConfigSchema>;

/** Reads the estimator config from flags and environment, validated once. */
export const readEstimatorConfig = configReader(estimatorConfigSchema);
