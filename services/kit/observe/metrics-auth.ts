// Optional bearer-token protection of /metrics: a scraper gets its own tokens file (same format as
// --auth-tokens-file, any role), so it never holds a token that could call the services.
import { InvalidInputError } from "../../domain/errors.js";
import type { ConfigKey } from "../config/config-schema.js";
import { WatchedFile } from "../files/watched-file.js";
import { parseTokens, TokenSet } from "../security/auth-tokens.js";
import { warnIfReadableByOthers } from "../security/file-permissions.js";
import type { Logger } from "./logger.js";

/** `--metrics-tokens-file`: when set, /metrics answers 401 without one of its bearer tokens. */
export const metricsTokensFileKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_METRICS_TOKENS_FILE",
  flag: "metrics-tokens-file",
  description:
    'Bearer tokens a scraper must send to /metrics ("Authorization: Bearer <token>"), in the --auth-tokens-file format (any role); re-read when it changes. Empty: /metrics is open.',
};

/** Decides a /metrics request from its `Authorization` header: true when it may read the metrics. */
export type MetricsAuthorizer = (authorization: string | undefined) => boolean;

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The authorizer of `tokensFile`, or undefined (open) when it is empty; a bad file fails naming the flag. */
export function createMetricsAuthorizer(tokensFile: string, logger: Logger): MetricsAuthorizer | undefined {
  if (tokensFile === "") return undefined;
  let file: WatchedFile<TokenSet>;
  try {
    file = new WatchedFile(
      tokensFile,
      (text) => new TokenSet(parseTokens(text)),
      (error) =>
        logger.error(
          { file: tokensFile, reason: error.message },
          "metrics tokens file not reloaded; keeping the previous tokens",
        ),
    );
  } catch (error) {
    throw new InvalidInputError("--metrics-tokens-file", `cannot use ${tokensFile}: ${(error as Error).message}`);
  }
  warnIfReadableByOthers(tokensFile, "--metrics-tokens-file", logger);
  return (authorization) => {
    const token = BEARER.exec(authorization ?? "")?.[1];
    return token !== undefined && file.current().find(token) !== undefined;
  };
}
