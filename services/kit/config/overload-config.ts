// Every server's overload keys: how many calls and streams it admits (calls/admission.ts) and how its
// gRPC connections are kept alive and retired. Spread into each service's config schema, like the
// security keys; a library caller or test that leaves them out gets the defaults (overloadOf).
import type { ConfigKey, ConfigOf } from "./config-schema.js";

const atLeast = (min: number) => (value: number) => (value >= min ? undefined : `expected at least ${min}, got ${value}`);

function overloadKey(name: string, defaultValue: number, description: string, min = 0): ConfigKey<number> {
  return {
    type: "integer",
    default: defaultValue,
    env: `KEPLER_MODEL_${name.toUpperCase().replaceAll("-", "_")}`,
    flag: name,
    description,
    check: atLeast(min),
  };
}

/** The admission and connection keys every gRPC server reads. */
export const overloadConfigSchema = {
  maxCalls: overloadKey(
    "max-calls",
    64,
    "Most unary calls and HTTP requests a service runs at once, besides Estimate and health (which have their own slots); more wait in the queue, past it RESOURCE_EXHAUSTED / HTTP 429.",
    1,
  ),
  maxCallsPerClient: overloadKey(
    "max-calls-per-client",
    16,
    "Most of those calls one client address runs at once (0: no per-client limit).",
  ),
  maxQueuedCalls: overloadKey(
    "max-queued-calls",
    64,
    "Calls waiting for a slot once --max-calls run; one more is refused at once with RESOURCE_EXHAUSTED (0: no queue).",
  ),
  queueWaitMs: overloadKey(
    "queue-wait-ms",
    2000,
    "Longest a queued call waits for a slot before RESOURCE_EXHAUSTED with a retry hint, in ms.",
    1,
  ),
  maxStreams: overloadKey(
    "max-streams",
    128,
    "Most streaming calls (uploads, imports, recordings, training, WatchModels) a service holds open at once; one more gets RESOURCE_EXHAUSTED.",
    1,
  ),
  maxStreamsPerClient: overloadKey(
    "max-streams-per-client",
    32,
    "Most streaming calls (EstimateStream included) one client address holds open at once (0: no per-client limit).",
  ),
  maxPriorityCalls: overloadKey(
    "max-priority-calls",
    1024,
    "Most Estimate and EstimateStream calls, health checks and Kepler socket requests running at once: slots of their own, so heavy work never takes them.",
    1,
  ),
  maxPriorityStreams: overloadKey(
    "max-priority-streams",
    0,
    "Most of those slots held by streams (EstimateStream, health Watch), so unary Estimate, health checks and Kepler's socket keep answering beside a stream flood (0: half of --max-priority-calls).",
  ),
  uploadBudgetBytes: overloadKey(
    "upload-budget-bytes",
    256 * 1024 * 1024,
    "Upload bytes the whole process holds at once (archives published or imported, pipeline and idle recordings, POST /model bodies); an upload that does not fit gets RESOURCE_EXHAUSTED with a retry hint. The default fits the shipped 512Mi limit (docs/operations.md).",
    1,
  ),
  keepaliveMs: overloadKey(
    "grpc-keepalive-ms",
    60_000,
    "Interval of the gRPC server's HTTP/2 pings on an open connection, in ms; a client that does not answer within --grpc-keepalive-timeout-ms is disconnected.",
    1000,
  ),
  keepaliveTimeoutMs: overloadKey(
    "grpc-keepalive-timeout-ms",
    20_000,
    "How long the gRPC server waits for a ping's answer before closing the connection, in ms.",
    100,
  ),
  maxConnectionIdleMs: overloadKey(
    "grpc-max-connection-idle-ms",
    900_000,
    "A gRPC connection with no call for this long is closed with GOAWAY, in ms (0: never); clients reconnect on their next call.",
  ),
  maxConnectionAgeMs: overloadKey(
    "grpc-max-connection-age-ms",
    0,
    "A gRPC connection older than this gets GOAWAY, so clients spread over replicas again, in ms (0: never).",
  ),
  maxConnectionAgeGraceMs: overloadKey(
    "grpc-max-connection-age-grace-ms",
    30_000,
    "After --grpc-max-connection-age-ms, how long calls on the old connection may still finish, in ms.",
  ),
};

export type OverloadConfig = ConfigOf<typeof overloadConfigSchema>;

/** The defaults of every overload key. */
export const DEFAULT_OVERLOAD: OverloadConfig = Object.fromEntries(
  Object.entries(overloadConfigSchema).map(([name, key]) => [name, key.default]),
) as OverloadConfig;

/** A service config whose overload keys may be left out (tests, library callers): they take their defaults. */
export type WithOverload<C> = Omit<C, keyof OverloadConfig> & Partial<OverloadConfig>;

/** The overload keys of a config, defaults filled in. */
export function overloadOf(config: Partial<OverloadConfig>): OverloadConfig {
  const overload = { ...DEFAULT_OVERLOAD };
  for (const key of Object.keys(DEFAULT_OVERLOAD) as (keyof OverloadConfig)[]) {
    if (config[key] !== undefined) overload[key] = config[key];
  }
  return overload;
}

/** grpc-js server options for the keepalive and connection-age keys. */
export function connectionOptions(config: OverloadConfig): Record<string, number> {
  const options: Record<string, number> = {
    // Channelz keeps per-call counters and traces that nothing here reads; each call of a flood paid for them.
    "grpc.enable_channelz": 0,
    "grpc.keepalive_time_ms": config.keepaliveMs,
    "grpc.keepalive_timeout_ms": config.keepaliveTimeoutMs,
  };
  if (config.maxConnectionIdleMs > 0) options["grpc.max_connection_idle_ms"] = config.maxConnectionIdleMs;
  if (config.maxConnectionAgeMs > 0) {
    options["grpc.max_connection_age_ms"] = config.maxConnectionAgeMs;
    options["grpc.max_connection_age_grace_ms"] = config.maxConnectionAgeGraceMs;
  }
  return options;
}
