// The command's bundle (dist/kepler-model.mjs) of a checkout, for benchmarks that run the command as a
// user does: bin/kepler-model.js runs the bundle when no source is newer, else the TypeScript sources
// through tsx. A benchmark comparing two checkouts refreshes this one's bundle first and states what each
// side ran, so neither side is timed through tsx's loader while the other runs bundled.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Root of this checkout. */
export const CHECKOUT_ROOT = new URL("../../", import.meta.url).pathname;

/** Runs `npm run build:cli` (bin/build-cli.mjs) in this checkout; throws with its stderr when it fails. */
export function refreshCommandBundle(): void {
  const built = spawnSync(process.execPath, [join(CHECKOUT_ROOT, "bin/build-cli.mjs")], { cwd: CHECKOUT_ROOT, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`npm run build:cli failed: ${built.stderr}`);
}

/** What bin/kepler-model.js of the checkout at `root` runs now: "bundle" or "sources" (its own mtime rule). */
export function commandRunsFrom(root: string): "bundle" | "sources" {
  const bundle = join(root, "dist/kepler-model.mjs");
  if (!existsSync(bundle)) return "sources";
  let newest = 0;
  for (const folder of ["cli", "services", "wasm-core/build", "bin"]) {
    if (!existsSync(join(root, folder))) continue;
    for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true }))
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return statSync(bundle).mtimeMs >= newest ? "bundle" : "sources";
}

/** The short commit of the checkout at `dir`, `+ uncommitted edits` when its work tree differs, or why neither is known. */
export function checkoutRevision(dir: string): string {
  const commit = spawnSync("git", ["-C", dir, "rev-parse", "--short", "HEAD"], { encoding: "utf8" });
  if (commit.status !== 0) return "(not a git checkout)";
  const status = spawnSync("git", ["-C", dir, "status", "--porcelain", "--untracked-files=no"], { encoding: "utf8" });
  return `${commit.stdout.trim()}${status.stdout.trim() === "" ? "" : " + uncommitted edits"}`;
}
