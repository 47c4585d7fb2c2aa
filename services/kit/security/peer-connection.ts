import { type ClientMiddlewareCall, type CallOptions, Metadata } from "nice-grpc";
import { InvalidInputError } from "../../domain/errors.js";
import { TokenSet, parseTokens } from "./auth-tokens.js";
import type { ClientSecurityConfig, SecurityConfig } from "./security-config.js";
import { type ChannelSecurity, channelSecurity } from "./tls-credentials.js";
import { WatchedFile } from "../files/watched-file.js";

/** How a client reaches servers: channel credentials, and the bearer token to send (read per call). */
export interface PeerConnection {
  readonly security: ChannelSecurity;
  /** The current token (a token file is re-read when it changes); undefined sends none. */
  token(): string | undefined;
}

/** Plaintext, no token: the default for tests and library callers. */
export const PLAINTEXT_PEER: PeerConnection = {
  security: channelSecurity({ tokenFile: "", token: "", tlsCa: "", tlsCert: "", tlsKey: "", tlsServerName: "" }),
  token: () => undefined,
};

/** The connection a CLI command uses: --token-file, else KEPLER_MODEL_TOKEN / --token, and the TLS keys. */
export function clientConnection(config: ClientSecurityConfig): PeerConnection {
  return { security: channelSecurity(config), token: clientToken(config) };
}

/**
 * The connection a service uses for its peers: like the CLI's, and when neither --token-file nor
 * --token is set, the first write token of its own --auth-tokens-file (all services of a deployment
 * normally mount the same tokens Secret, so peers accept it).
 */
export function servicePeerConnection(config: SecurityConfig): PeerConnection {
  if (config.tokenFile === "" && config.token === "" && config.authTokensFile !== "") {
    const tokens = new WatchedFile(config.authTokensFile, (text) => new TokenSet(parseTokens(text)));
    return { security: channelSecurity(config), token: () => tokens.current().firstWriteToken()?.token };
  }
  return clientConnection(config);
}

function clientToken(config: ClientSecurityConfig): () => string | undefined {
  if (config.tokenFile !== "") {
    let file: WatchedFile<string>;
    try {
      file = new WatchedFile(config.tokenFile, (text) => {
        const token = text.trim();
        if (token === "" || /\s/.test(token)) throw new Error("expected one token without spaces");
        return token;
      });
    } catch (error) {
      throw new InvalidInputError("--token-file", `cannot use ${config.tokenFile}: ${(error as Error).message}`);
    }
    return () => file.current();
  }
  const token = config.token.trim();
  return () => (token === "" ? undefined : token);
}

/** Client middleware adding `authorization: Bearer <token>` to every call when a token is configured. */
export function bearerTokenMiddleware(token: () => string | undefined) {
  return async function* bearerToken<Request, Response>(
    call: ClientMiddlewareCall<Request, Response>,
    options: CallOptions,
  ): AsyncGenerator<Response, Response | void, undefined> {
    const current = token();
    if (current === undefined) return yield* call.next(call.request, options);
    const metadata = Metadata(options.metadata);
    metadata.set("authorization", `Bearer ${current}`);
    return yield* call.next(call.request, { ...options, metadata });
  };
}
