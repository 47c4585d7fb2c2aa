#!/usr/bin/env node
// npm's `prepare`: runs `npm run build` unless every build output is newer than every file the build reads.
// `npx kepler-model` in a checkout installs the folder as a package and runs `prepare` on each fresh npx
// cache; a checkout that `npm ci` already built then starts at once instead of rebuilding for a minute.
// A fresh clone has no outputs, so `npm ci` still builds; an edit or `git pull` makes a source newer.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

// What the build reads (package.json scripts build:*); services/generated is its output, not a source.
const SOURCES = [
  "proto",
  "wasm-core/assembly",
  "wasm-core/asconfig.json",
  "services",
  "cli",
  "bin",
  "deploy/vm/build-exporter.mjs",
  "buf.yaml",
  "buf.gen.yaml",
  "package.json",
  "package-lock.json",
];
const SKIPPED = new Set(["services/generated", "node_modules"]);
const OUTPUTS = [
  "services/generated/descriptor-set.binpb",
  "services/generated/request-shapes.ts",
  "wasm-core/build/core.wasm",
  "dist/kepler-model.mjs",
  "dist/kepler-model-exporter.mjs",
  "dist/core.wasm",
];

function newestMtime(path) {
  const stats = statSync(join(root, path), { throwIfNoEntry: false });
  if (stats === undefined) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(join(root, path), { withFileTypes: true })) {
    const child = `${path}/${entry.name}`;
    if (!SKIPPED.has(child) && !SKIPPED.has(entry.name)) newest = Math.max(newest, newestMtime(child));
  }
  return newest;
}

const missing = OUTPUTS.filter((path) => !existsSync(join(root, path)));
const oldestOutput = Math.min(...OUTPUTS.filter((path) => !missing.includes(path)).map((path) => newestMtime(path)));
const newestSource = Math.max(...SOURCES.map(newestMtime));

if (missing.length === 0 && newestSource <= oldestOutput) {
  console.log("prepare: build outputs are newer than every source; skipping npm run build");
} else {
  console.log(
    missing.length > 0
      ? `prepare: building (${missing.join(", ")} missing)`
      : "prepare: building (a source is newer than the build outputs)",
  );
  const npm = process.env.npm_execpath;
  const build =
    npm === undefined
      ? spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" })
      : spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" });
  process.exitCode = build.status ?? 1;
}
