// Who may call what: bearer tokens from a watched file, and whether reads need one.
import { InvalidInputError } from "../../domain/errors.js";
import { AccessDenied } from "./access-denied.js";
import { type NamedToken, TokenSet, parseTokens } from "./auth-tokens.js";
import type { Logger } from "../observe/logger.js";
import type { RpcAccess } from "./rpc-access.js";
import type { SecurityConfig } from "./security-config.js";
import { WatchedFile } from "../files/watched-file.js";
import { warnIfReadableByOthers } from "./file-permissions.js";

/** Who may call what: the configured tokens (re-read when the file changes) and whether reads need one. */
export interface AuthPolicy {
  readonly tokensFile: string;
  readonly authReads: boolean;
  tokens(): TokenSet;
  /**
   * Set when no tokens are configured on a server bound beyond loopback: writes are refused (except
   * in-process calls of this process's own services) and this says why.
   */
  readonly writesRefused?: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);

/** Whether a bind host is reachable only from this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return LOOPBACK_HOSTS.has(bare) || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * The auth policy of a service config bound to `host`: undefined (everything open) when no tokens file
 * is configured and the host is loopback or --insecure-allow-unauthenticated-writes is set; writes
 * refused when no tokens file is configured on any other host.
 */
export function authPolicy(config: SecurityConfig, logger: Logger, host = "127.0.0.1"): AuthPolicy | undefined {
  if (config.authTokensFile === "") {
    if (config.authReads) throw new InvalidInputError("--auth-reads", "needs --auth-tokens-file");
    if (isLoopbackHost(host) || config.insecureAllowUnauthenticatedWrites) return undefined;
    return {
      tokensFile: "",
      authReads: false,
      tokens: () => new TokenSet([]),
      writesRefused:
        `this server listens on ${host} with no --auth-tokens-file, so it refuses writes: give it tokens ` +
        "(KEPLER_MODEL_AUTH_TOKENS_FILE, docs/security.md) or set --insecure-allow-unauthenticated-writes",
    };
  }
  let file: WatchedFile<TokenSet>;
  try {
    file = new WatchedFile(
      config.authTokensFile,
      (text) => new TokenSet(parseTokens(text)),
      (error) =>
        logger.error(
          { file: config.authTokensFile, reason: error.message },
          "tokens file not reloaded; keeping the previous tokens",
        ),
    );
  } catch (error) {
    throw new InvalidInputError("--auth-tokens-file", `cannot use ${config.authTokensFile}: ${(error as Error).message}`);
  }
  warnIfReadableByOthers(config.authTokensFile, "--auth-tokens-file", logger);
  return { tokensFile: config.authTokensFile, authReads: config.authReads, tokens: () => file.current() };
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Decides one call from its `authorization` header: the caller's token when one is needed and valid,
 * undefined when none is needed, AccessDenied otherwise. Every transport asks it through the call pipeline (auth-interceptor.ts).
 * `what` names the call in messages (an RPC path or "POST /model").
 */
export function authorize(
  policy: AuthPolicy,
  access: RpcAccess,
  what: string,
  header: string | undefined,
): NamedToken | undefined {
  if (access === "open" || (access === "read" && !policy.authReads)) return undefined;
  if (policy.writesRefused !== undefined)
    throw new AccessDenied(
      "permission-denied",
      `${what} changes state; ${policy.writesRefused}`,
      "write without tokens configured",
    );
  const needs = access === "write" ? "changes state and needs" : "needs (reads require tokens here)";
  if (header === undefined || header === "")
    throw new AccessDenied(
      "unauthenticated",
      `${what} ${needs} a bearer token: send metadata "authorization: Bearer <token>" (CLI: --token-file or KEPLER_MODEL_TOKEN)`,
      "no bearer token",
    );
  const token = BEARER.exec(header)?.[1];
  if (token === undefined)
    throw new AccessDenied("unauthenticated", `the authorization metadata must be "Bearer <token>"`, "not a bearer token");
  const found = policy.tokens().find(token);
  if (found === undefined)
    throw new AccessDenied(
      "unauthenticated",
      "the bearer token is not one of the tokens in the server's --auth-tokens-file",
      "unknown bearer token",
    );
  if (access === "write" && found.role !== "write")
    throw new AccessDenied(
      "permission-denied",
      `token "${found.name}" has the read role; ${what} changes state and needs a token with the write role`,
      "read-only token on a write",
      found.name,
    );
  return found;
}
