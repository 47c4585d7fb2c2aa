import { describe, expect, it } from "vitest";
import { AccessDenied } from "./access-denied.js";
import { type AuthPolicy, authorize } from "./auth-policy.js";
import { TokenSet, parseTokens } from "./auth-tokens.js";

const WRITE = "w".repeat(16) + "0123";
const READ = "r".repeat(16) + "4567";

describe("tokens files", () => {
  it("reads name:token[:role] lines, skipping comments and blank lines; role defaults to write", () => {
    expect(parseTokens(`# deployers\nci:${WRITE}\n\n  grafana:${READ}:read  \n`)).toEqual([
      { name: "ci", role: "write", token: WRITE },
      { name: "grafana", role: "read", token: READ },
    ]);
  });

  it("reads a JSON map of names to tokens or {token, role}", () => {
    expect(parseTokens(JSON.stringify({ ci: WRITE, grafana: { token: READ, role: "read" } }))).toEqual([
      { name: "ci", role: "write", token: WRITE },
      { name: "grafana", role: "read", token: READ },
    ]);
  });

  it("refuses weak, duplicate and malformed entries, naming the entry but never the token", () => {
    const problem = (text: string) => {
      try {
        parseTokens(text);
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    expect(problem("ci:short")).toBe('token "ci" must be at least 16 printable characters without spaces');
    expect(problem(`ci:${WRITE}\nci:${READ}`)).toBe('token name "ci" appears twice');
    expect(problem(`ci:${WRITE}\nci2:${WRITE}`)).toBe('token "ci2" has the same value as another token');
    expect(problem(`ci:${WRITE}:admin`)).toBe('token "ci": role must be read or write, got "admin"');
    expect(problem(`just-a-token-${WRITE}`)).toBe("line 1: expected name:token or name:token:read|write");
    expect(problem("# nothing\n")).toBe("no tokens in the file");
    expect(problem("{ not json")).toMatch(/^not valid JSON/);
    for (const message of [problem(`ci:${WRITE}:admin`), problem(`ci:${WRITE}\nci2:${WRITE}`)])
      expect(message).not.toContain(WRITE);
  });

  it("finds a presented token by value, and nothing for a prefix, a longer string or another token", () => {
    const set = new TokenSet(parseTokens(`ci:${WRITE}\ngrafana:${READ}:read`));
    expect(set.find(WRITE)?.name).toBe("ci");
    expect(set.find(READ)?.name).toBe("grafana");
    expect(set.find(WRITE.slice(0, -1))).toBeUndefined();
    expect(set.find(`${WRITE}x`)).toBeUndefined();
    expect(set.find("")).toBeUndefined();
    expect(set.firstWriteToken()?.name).toBe("ci");
  });
});

describe("authorize", () => {
  const policy = (authReads: boolean): AuthPolicy => {
    const tokens = new TokenSet(parseTokens(`ci:${WRITE}\ngrafana:${READ}:read`));
    return { tokensFile: "tokens", authReads, tokens: () => tokens };
  };
  const decide = (authReads: boolean, access: "open" | "read" | "write", header?: string) => {
    try {
      return authorize(policy(authReads), access, "/x.Y/Z", header)?.name ?? "open";
    } catch (error) {
      if (error instanceof AccessDenied) return error.kind;
      throw error;
    }
  };

  it("needs a write token for writes, any token for reads only with --auth-reads, none for open RPCs", () => {
    expect(decide(false, "write")).toBe("unauthenticated");
    expect(decide(false, "write", `Bearer ${READ}`)).toBe("permission-denied");
    expect(decide(false, "write", `bearer  ${WRITE}`)).toBe("ci");
    expect(decide(false, "write", WRITE)).toBe("unauthenticated");
    expect(decide(false, "write", `Basic ${WRITE}`)).toBe("unauthenticated");
    expect(decide(false, "read")).toBe("open");
    expect(decide(true, "read")).toBe("unauthenticated");
    expect(decide(true, "read", `Bearer ${READ}`)).toBe("grafana");
    expect(decide(true, "read", `Bearer ${WRITE}`)).toBe("ci");
    expect(decide(true, "open")).toBe("open");
  });
});
