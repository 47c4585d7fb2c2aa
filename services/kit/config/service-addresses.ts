import { DEFAULT_PEER_DEADLINE_MS } from "../calls/call-deadline.js";
import { type ConfigKey, checkPort } from "./config-schema.js";
import { DEFAULT_PEER_HEALTH_INTERVAL_MS } from "../transport/peer-health.js";

/** The six services and their default ports (DESIGN.md: 8100 is the reference model server's port). */
export const DEFAULT_PORTS = {
  registry: 8100,
  estimator: 8101,
  pipeline: 8102,
  extractor: 8103,
  isolator: 8104,
  trainer: 8105,
} as const;

export type ServiceName = keyof typeof DEFAULT_PORTS;
export const SERVICE_NAMES = Object.keys(DEFAULT_PORTS) as ServiceName[];

/** The host every server binds to: loopback by default, 0.0.0.0 in containers. */
export const hostKey: ConfigKey<string> = {
  type: "string",
  default: "127.0.0.1",
  env: "KEPLER_MODEL_HOST",
  flag: "host",
  description: "Address the gRPC servers bind to.",
};

/** `--<service>-port` / `KEPLER_MODEL_<SERVICE>_PORT`: where a service listens. */
export function portKey(service: ServiceName): ConfigKey<number> {
  return {
    type: "integer",
    default: DEFAULT_PORTS[service],
    env: `KEPLER_MODEL_${service.toUpperCase()}_PORT`,
    flag: `${service}-port`,
    description: `Port the ${service} service listens on (0 picks a free port).`,
    check: checkPort,
  };
}

/** `--<service>-address` / `KEPLER_MODEL_<SERVICE>_ADDRESS`: where a peer is reached. */
export function peerAddressKey(service: ServiceName): ConfigKey<string> {
  return {
    type: "string",
    default: `127.0.0.1:${DEFAULT_PORTS[service]}`,
    env: `KEPLER_MODEL_${service.toUpperCase()}_ADDRESS`,
    flag: `${service}-address`,
    description: `host:port of the ${service} service, for services that call it.`,
  };
}

/** `--peer-deadline-ms`: the deadline of each unary call a service makes to a peer. */
export const peerDeadlineKey: ConfigKey<number> = {
  type: "integer",
  default: DEFAULT_PEER_DEADLINE_MS,
  env: "KEPLER_MODEL_PEER_DEADLINE_MS",
  flag: "peer-deadline-ms",
  description: "Deadline in ms of each unary call to a peer service (a wedged peer then fails the call with DEADLINE_EXCEEDED).",
  check: (value) => (Number.isInteger(value) && value >= 100 ? undefined : `expected at least 100 ms, got ${value}`),
};

/** `--peer-health-interval-ms`: how often a service checks that its required peers answer health. */
export const peerHealthIntervalKey: ConfigKey<number> = {
  type: "integer",
  default: DEFAULT_PEER_HEALTH_INTERVAL_MS,
  env: "KEPLER_MODEL_PEER_HEALTH_INTERVAL_MS",
  flag: "peer-health-interval-ms",
  description:
    "ms between health checks of a service's required peers; while one does not answer, the service's own gRPC health status (readiness) is NOT_SERVING. 0 turns the checks off.",
  check: (value) => (Number.isInteger(value) && value >= 0 ? undefined : `expected 0 or more ms, got ${value}`),
};

/** Log settings shared by every service. */
export const logLevelKey: ConfigKey<string> = {
  type: "string",
  default: "info",
  env: "KEPLER_MODEL_LOG_LEVEL",
  flag: "log-level",
  description: "Log level: trace, debug, info, warn, error, silent.",
};
export const logFormatKey: ConfigKey<string> = {
  type: "string",
  default: "auto",
  env: "KEPLER_MODEL_LOG_FORMAT",
  flag: "log-format",
  description: "Log format: json, pretty, or auto (pretty on a terminal, JSON otherwise).",
  check: (value) => (["json", "pretty", "auto"].includes(value) ? undefined : `expected json, pretty or auto, got "${value}"`),
};
