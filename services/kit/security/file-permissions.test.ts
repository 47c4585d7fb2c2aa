// Domain test: the warning for a tokens file other users can read (chmod on real files).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readableByOthers, warnIfReadableByOthers } from "./file-permissions.js";

const folder = mkdtempSync(join(tmpdir(), "file-permissions-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function fileWithMode(name: string, mode: number): string {
  const path = join(folder, name);
  writeFileSync(path, "reader:secret-0123456789:read\n");
  chmodSync(path, mode);
  return path;
}

describe("secret file permissions", () => {
  it("names group- or world-readable modes, not owner-only ones", () => {
    expect(readableByOthers(fileWithMode("owner", 0o600))).toBeUndefined();
    expect(readableByOthers(fileWithMode("owner-exec", 0o700))).toBeUndefined();
    expect(readableByOthers(fileWithMode("group", 0o640))).toBe(0o640);
    expect(readableByOthers(fileWithMode("world", 0o604))).toBe(0o604);
    expect(readableByOthers(join(folder, "missing"))).toBeUndefined();
  });

  it("warns once with the file, its mode and the flag", () => {
    const lines: unknown[][] = [];
    const logger = { warn: (...args: unknown[]) => void lines.push(args) };
    const path = fileWithMode("tokens", 0o644);
    warnIfReadableByOthers(path, "--auth-tokens-file", logger as never);
    warnIfReadableByOthers(fileWithMode("private", 0o600), "--auth-tokens-file", logger as never);
    expect(lines).toEqual([
      [{ file: path, mode: "0644", flag: "--auth-tokens-file" }, "secret file readable by group or others; chmod 600 it"],
    ]);
  });
});
