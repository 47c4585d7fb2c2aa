import type { ConfigKey } from "../config/config-schema.js";
import { auditLogKey } from "./audit-log.js";

/** Server side: who may call (bearer tokens) and whether reads need a token too. */
export const authTokensFileKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_AUTH_TOKENS_FILE",
  flag: "auth-tokens-file",
  description:
    'Bearer tokens accepted by the gRPC servers: lines "name:token[:read|write]" or a JSON map {"name": "token" | {"token", "role"}}; re-read when it changes. Empty: no authentication (on loopback anyone who can connect may write; beyond loopback writes are refused unless --insecure-allow-unauthenticated-writes).',
};

const authReadsKey: ConfigKey<boolean> = {
  type: "boolean",
  default: false,
  env: "KEPLER_MODEL_AUTH_READS",
  flag: "auth-reads",
  description:
    "With --auth-tokens-file, also require a token (read or write role) on reads (Estimate, selection, listing, reflection); health stays open for probes.",
};

/** Safe default: a server bound beyond loopback with no tokens refuses writes unless this is set. */
const insecureAllowUnauthenticatedWritesKey: ConfigKey<boolean> = {
  type: "boolean",
  default: false,
  env: "KEPLER_MODEL_INSECURE_ALLOW_UNAUTHENTICATED_WRITES",
  flag: "insecure-allow-unauthenticated-writes",
  description:
    "Accept writes without a token on a server bound beyond loopback (--host 0.0.0.0) with no --auth-tokens-file; without it such a server refuses writes (PERMISSION_DENIED, HTTP 403) except from this process's own services. Only where something else (network policies) limits who connects.",
};

/** Client side: the token this process sends (CLI, and a service's calls to its peers). */
const tokenFileKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TOKEN_FILE",
  flag: "token-file",
  description:
    "File holding the bearer token sent to servers (CLI and peer calls); re-read when it changes. Services default to the first write token of --auth-tokens-file.",
};

const tokenKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TOKEN",
  flag: "token",
  description: "Bearer token sent to servers when --token-file is empty (prefer the file or the variable: a flag shows in ps).",
};

/** TLS: this process's certificate, served by its gRPC servers and presented to peers (mTLS). */
const tlsCertKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TLS_CERT",
  flag: "tls-cert",
  description:
    "PEM certificate (chain) of this process: served by its gRPC servers (TLS on when set) and presented as client certificate to servers that require one; re-read when it changes.",
};

const tlsKeyKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TLS_KEY",
  flag: "tls-key",
  description: "PEM private key of --tls-cert.",
};

const tlsClientCaKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TLS_CLIENT_CA",
  flag: "tls-client-ca",
  description:
    "PEM CA bundle for client certificates: when set (with --tls-cert), the gRPC servers require a client certificate signed by it (mTLS).",
};

const tlsCaKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TLS_CA",
  flag: "tls-ca",
  description:
    "PEM CA bundle that verifies the servers this process calls (CLI, peer calls); TLS is used for calls when this or --tls-cert is set (system roots when empty).",
};

const tlsServerNameKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_TLS_SERVER_NAME",
  flag: "tls-server-name",
  description: "Name expected in the servers' certificates instead of the host of the address called (e.g. when calling by IP).",
};

/** What a client (CLI command or peer client) needs: its token and TLS settings. */
export const clientSecurityConfigSchema = {
  tokenFile: tokenFileKey,
  token: tokenKey,
  tlsCa: tlsCaKey,
  tlsCert: tlsCertKey,
  tlsKey: tlsKeyKey,
  tlsServerName: tlsServerNameKey,
};

/** Every service's security keys: spread into each service's config schema. */
export const securityConfigSchema = {
  authTokensFile: authTokensFileKey,
  authReads: authReadsKey,
  insecureAllowUnauthenticatedWrites: insecureAllowUnauthenticatedWritesKey,
  tlsClientCa: tlsClientCaKey,
  auditLog: auditLogKey,
  ...clientSecurityConfigSchema,
};

export interface ClientSecurityConfig {
  tokenFile: string;
  token: string;
  tlsCa: string;
  tlsCert: string;
  tlsKey: string;
  tlsServerName: string;
}

export interface SecurityConfig extends ClientSecurityConfig {
  authTokensFile: string;
  authReads: boolean;
  insecureAllowUnauthenticatedWrites: boolean;
  tlsClientCa: string;
  auditLog: string;
}

/** No authentication, no TLS: what tests and library callers get unless they say otherwise. */
export const INSECURE: SecurityConfig = {
  authTokensFile: "",
  authReads: false,
  insecureAllowUnauthenticatedWrites: false,
  tlsClientCa: "",
  auditLog: "",
  tokenFile: "",
  token: "",
  tlsCa: "",
  tlsCert: "",
  tlsKey: "",
  tlsServerName: "",
};

/** A service config whose security keys may be left out (tests and library callers): they default to INSECURE. */
export type WithSecurity<C> = Omit<C, keyof SecurityConfig> & Partial<SecurityConfig>;

/** The security keys of a service config, defaults filled in. */
export function securityOf(config: Partial<SecurityConfig>): SecurityConfig {
  const security = { ...INSECURE };
  for (const key of Object.keys(INSECURE) as (keyof SecurityConfig)[]) {
    if (config[key] !== undefined) (security as Record<string, unknown>)[key] = config[key];
  }
  return security;
}
