import { type CallContext, ServerError, type ServerMiddlewareCall, Status } from "nice-grpc";
import { InvalidInputError } from "../../domain/errors.js";
import { type NamedToken, TokenSet, parseTokens } from "./auth-tokens.js";
import type { Logger } from "../observe/logger.js";
import { type RpcAccess, rpcAccess } from "./rpc-access.js";
import type { SecurityConfig } from "./security-config.js";
import { WatchedFile } from "../files/watched-file.js";

/** Who may call what: the configured tokens (re-read when the file changes) and whether reads need one. */
export interface AuthPolicy {
  readonly tokensFile: string;
  readonly authReads: boolean;
  tokens(): TokenSet;
}

/** The auth policy of a service config, or undefined when no tokens file is configured (everything open). */
export function authPolicy(config: SecurityConfig, logger: Logger): AuthPolicy | undefined {
  if (config.authTokensFile === "") {
    if (config.authReads) throw new InvalidInputError("--auth-reads", "needs --auth-tokens-file");
    return undefined;
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
  return { tokensFile: config.authTokensFile, authReads: config.authReads, tokens: () => file.current() };
}

/** A refused call: no/unknown token (gRPC UNAUTHENTICATED, HTTP 401) or a read token on a write (PERMISSION_DENIED, 403). */
export class AccessDenied extends Error {
  override readonly name = "AccessDenied";
  constructor(
    readonly kind: "unauthenticated" | "permission-denied",
    message: string,
    /** For the log: why, and the token's name when one was recognised. */
    readonly reason: string,
    readonly caller?: string,
  ) {
    super(message);
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Decides one call from its `authorization` header: the caller's token when one is needed and valid,
 * undefined when none is needed, AccessDenied otherwise. Shared by gRPC (below) and any HTTP front end.
 * `what` names the call in messages (an RPC path or "POST /model").
 */
export function authorize(
  policy: AuthPolicy,
  access: RpcAccess,
  what: string,
  header: string | undefined,
): NamedToken | undefined {
  if (access === "open" || (access === "read" && !policy.authReads)) return undefined;
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

/**
 * nice-grpc server middleware enforcing the policy before any work, with the access of RPC_ACCESS.
 * Denials and authorized writes are logged with the token's name, never the token.
 */
export function createAuthMiddleware(policy: AuthPolicy, logger: Logger) {
  return async function* authMiddleware<Request, Response>(
    call: ServerMiddlewareCall<Request, Response>,
    context: CallContext,
  ): AsyncGenerator<Response, Response | void, undefined> {
    admitCall(policy, call.method.path, context.metadata.get("authorization"), context.peer, logger);
    return yield* call.next(call.request, context);
  };
}

/**
 * Admits one call to `rpc` or throws ServerError UNAUTHENTICATED / PERMISSION_DENIED; denials and
 * authorized writes are logged with the token's name, never the token.
 */
export function admitCall(policy: AuthPolicy, rpc: string, header: string | undefined, peer: string, logger: Logger): void {
  const access = rpcAccess(rpc);
  let caller: NamedToken | undefined;
  try {
    caller = authorize(policy, access, rpc, header);
  } catch (error) {
    if (!(error instanceof AccessDenied)) throw error;
    logger.warn({ rpc, caller: error.caller, peer }, `denied: ${error.reason}`);
    throw new ServerError(error.kind === "unauthenticated" ? Status.UNAUTHENTICATED : Status.PERMISSION_DENIED, error.message);
  }
  if (access === "write") logger.info({ rpc, caller: caller?.name, peer }, "write authorized");
}
