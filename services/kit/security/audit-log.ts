// The audit log: one JSON line per write call (who, what, from where, how it ended), a stream of its own
// apart from the service log, so it can be kept, shipped and searched on its own terms. The call
// pipeline writes it (calls/audit-interceptor.ts), so every transport is covered.
import { closeSync, openSync, writeSync } from "node:fs";
import { InvalidInputError } from "../../domain/errors.js";
import type { ConfigKey } from "../config/config-schema.js";
import type { ClientCertificate } from "./client-certificate.js";

/** `--audit-log`: where the audit lines go; empty turns the audit log off, `-` writes them to stderr. */
export const auditLogKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_AUDIT_LOG",
  flag: "audit-log",
  description:
    'File the servers append one JSON line to per write call (time, service, method, caller token, client certificate under mTLS, peer, target pipeline/model, outcome); "-" writes them to stderr (each line has "log":"audit"). Empty: no audit log.',
};

/** What a write call acted on, as far as its first request message says. */
export interface AuditTarget {
  pipeline?: string;
  /** `<source>/<OutputType>/<FeatureGroup>/<model>` within the pipeline. */
  model?: string;
  /** The Prometheus the server is asked to query. */
  prometheus?: string;
}

/** One audit line. */
export interface AuditEntry {
  time: string;
  service: string;
  method: string;
  transport: string;
  /** The bearer token's name when tokens are configured, else absent. */
  caller?: string;
  /** The client certificate the server verified, under mTLS (--tls-client-ca), else absent. */
  clientCertificate?: ClientCertificate;
  peer: string;
  target: AuditTarget;
  /** "OK" or the gRPC status name of the failure. */
  outcome: string;
  /** The failure's message as the caller got it. */
  details?: string;
  durationMs: number;
  requestId: number;
}

/** Where audit lines are appended. */
export interface AuditLog {
  readonly path: string;
  record(entry: AuditEntry): void;
  close(): void;
}

/**
 * The audit log at `path` (undefined when empty), opened for appending now, so an unwritable path stops
 * start-up naming the flag. Each line goes out in one write on an O_APPEND descriptor: lines of several
 * services of one process (or of several processes) sharing the file never interleave.
 */
export function openAuditLog(path: string): AuditLog | undefined {
  if (path === "") return undefined;
  let fd: number;
  try {
    fd = path === "-" ? 2 : openSync(path, "a", 0o600);
  } catch (error) {
    throw new InvalidInputError("--audit-log", `cannot append to ${path}: ${(error as Error).message}`);
  }
  const tag = path === "-" ? { log: "audit" } : {};
  let open = true;
  return {
    path,
    record(entry) {
      if (open) writeSync(fd, `${JSON.stringify({ ...tag, ...entry })}\n`);
    },
    close() {
      if (!open) return;
      open = false;
      if (fd !== 2) closeSync(fd);
    },
  };
}
