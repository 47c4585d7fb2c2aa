import { type CallContext, ServerError, type ServerMiddlewareCall, Status } from "nice-grpc";
import { InvalidInputError } from "../domain/errors.js";
import { type NamedToken, TokenSet, parseTokens } from "./auth-tokens.js";
import type { Logger } from "./logger.js";
import { rpcAccess } from "./rpc-access.js";
import type { SecurityConfig } from "./security-config.js";
import { WatchedFile } from "./watched-file.js";

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

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * nice-grpc server middleware enforcing the policy before any work: a write RPC (and, with --auth-reads,
 * a read) needs `authorization: Bearer <token>`. Missing or unknown token: UNAUTHENTICATED; a read token
 * on a write: PERMISSION_DENIED. Logs token names, never tokens.
 */
export function createAuthMiddleware(policy: AuthPolicy, logger: Logger) {
  return async function* authMiddleware<Request, Response>(
    call: ServerMiddlewareCall<Request, Response>,
    context: CallContext,
  ): AsyncGenerator<Response, Response | void, undefined> {
    const rpc = call.method.path;
    const access = rpcAccess(rpc);
    if (access === "write" || (access === "read" && policy.authReads)) {
      const caller = authenticate(policy, rpc, access, context.metadata.get("authorization"));
      if (access === "write" && caller.role !== "write") {
        logger.warn({ rpc, caller: caller.name, peer: context.peer }, "denied: read-only token on a write");
        throw new ServerError(
          Status.PERMISSION_DENIED,
          `token "${caller.name}" has the read role; ${rpc} changes state and needs a token with the write role`,
        );
      }
      if (access === "write") logger.info({ rpc, caller: caller.name, peer: context.peer }, "write authorized");
    }
    return yield* call.next(call.request, context);
  };

  function authenticate(policy: AuthPolicy, rpc: string, access: string, header: string | undefined): NamedToken {
    const what = access === "write" ? "changes state and needs" : "needs (--auth-reads is on)";
    if (header === undefined || header === "") {
      logger.warn({ rpc }, "denied: no bearer token");
      throw new ServerError(
        Status.UNAUTHENTICATED,
        `${rpc} ${what} a bearer token: send metadata "authorization: Bearer <token>" (CLI: --token-file or KEPLER_MODEL_TOKEN)`,
      );
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      logger.warn({ rpc }, "denied: authorization is not a bearer token");
      throw new ServerError(Status.UNAUTHENTICATED, `the authorization metadata must be "Bearer <token>"`);
    }
    const found = policy.tokens().find(token);
    if (found === undefined) {
      logger.warn({ rpc }, "denied: unknown bearer token");
      throw new ServerError(
        Status.UNAUTHENTICATED,
        `the bearer token is not one of the tokens in the server's --auth-tokens-file`,
      );
    }
    return found;
  }
}
