import { createHash, timingSafeEqual } from "node:crypto";

export type TokenRole = "read" | "write";

/** One configured token: its name (the only part that is ever logged) and role. */
export interface NamedToken {
  readonly name: string;
  readonly role: TokenRole;
  readonly token: string;
}

/** Shorter tokens are refused: a bearer token is a password that is never rate-limited. */
const MIN_TOKEN_LENGTH = 16;
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

/**
 * Parses a tokens file: either a JSON object {"name": "token"} / {"name": {"token": "...", "role": "read"}},
 * or lines "name:token" / "name:token:read|write" ('#' comments and blank lines skipped). Role defaults to
 * write. Errors name the line or key, never the token.
 */
export function parseTokens(text: string): NamedToken[] {
  const trimmed = text.trim();
  const tokens = trimmed.startsWith("{") ? parseJsonTokens(trimmed) : parseLineTokens(trimmed);
  if (tokens.length === 0) throw new Error("no tokens in the file");
  const names = new Set<string>();
  const values = new Set<string>();
  for (const token of tokens) {
    if (!NAME_PATTERN.test(token.name)) throw new Error(`token name "${token.name.slice(0, 64)}" must match ${NAME_PATTERN}`);
    if (names.has(token.name)) throw new Error(`token name "${token.name}" appears twice`);
    if (token.token.length < MIN_TOKEN_LENGTH || !TOKEN_PATTERN.test(token.token))
      throw new Error(`token "${token.name}" must be at least ${MIN_TOKEN_LENGTH} printable characters without spaces`);
    if (values.has(token.token)) throw new Error(`token "${token.name}" has the same value as another token`);
    names.add(token.name);
    values.add(token.token);
  }
  return tokens;
}

function parseRole(role: unknown, name: string): TokenRole {
  if (role === undefined || role === "write") return "write";
  if (role === "read") return "read";
  throw new Error(`token "${name}": role must be read or write, got ${JSON.stringify(role)}`);
}

function parseJsonTokens(text: string): NamedToken[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return Object.entries(parsed as Record<string, unknown>).map(([name, entry]) => {
    if (typeof entry === "string") return { name, role: "write", token: entry };
    if (typeof entry === "object" && entry !== null && typeof (entry as { token?: unknown }).token === "string") {
      const { token, role } = entry as { token: string; role?: unknown };
      return { name, role: parseRole(role, name), token };
    }
    throw new Error(`token "${name}": expected a string or {"token": "...", "role": "read|write"}`);
  });
}

function parseLineTokens(text: string): NamedToken[] {
  const tokens: NamedToken[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const parts = line.split(":");
    if (parts.length < 2 || parts.length > 3) throw new Error(`line ${index + 1}: expected name:token or name:token:read|write`);
    const [name, token, role] = parts as [string, string, string | undefined];
    tokens.push({ name, token, role: parseRole(role, name) });
  });
  return tokens;
}

/** Looks a presented token up in constant time (per configured token), whatever it matches or not. */
export class TokenSet {
  private readonly digests: { digest: Buffer; token: NamedToken }[];

  constructor(readonly tokens: readonly NamedToken[]) {
    this.digests = tokens.map((token) => ({ digest: sha256(token.token), token }));
  }

  /** The token the caller presented, or undefined. Compares digests so lengths leak nothing either. */
  find(presented: string): NamedToken | undefined {
    const digest = sha256(presented);
    let found: NamedToken | undefined;
    for (const entry of this.digests) if (timingSafeEqual(entry.digest, digest)) found = entry.token;
    return found;
  }

  /** The token peers of this process send when no --token-file is given: the first write token. */
  firstWriteToken(): NamedToken | undefined {
    return this.tokens.find((token) => token.role === "write");
  }
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
