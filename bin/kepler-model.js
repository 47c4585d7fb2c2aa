#!/usr/bin/env node
// The `kepler-model` command. Runs the bundle dist/kepler-model.mjs (npm run build:cli, part of
// `npm ci`) when no source is newer than it, else the TypeScript sources through tsx's loader (an edited
// checkout runs what it holds, no rebuild needed). Trainer modules (--trainer-modules) register into the
// sources' trainer registry, so with them the sources run.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bundle = `${root}dist/kepler-model.mjs`;
const argv = process.argv.slice(2);

function newestSource() {
  let newest = 0;
  for (const folder of ["cli", "services", "wasm-core/build", "bin"]) {
    for (const entry of readdirSync(`${root}${folder}`, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
    }
  }
  return newest;
}

const usesTrainerModules =
  argv.some((arg) => arg === "--trainer-modules" || arg.startsWith("--trainer-modules=")) ||
  (process.env.KEPLER_MODEL_TRAINER_MODULES ?? "") !== "";
const bundled = !usesTrainerModules && existsSync(bundle) && statSync(bundle).mtimeMs >= newestSource();

let runCli;
if (bundled) {
  ({ runCli } = await import(bundle));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ runCli } = await import("../cli/main.ts"));
}
process.exitCode = await runCli(argv);
