#!/usr/bin/env node
// The `kepler-model` command. Runs the bundle dist/kepler-model.mjs (npm run build:cli, part of
// `npm ci`) when no source is newer than it, else the TypeScript sources through tsx's loader (an edited
// checkout runs what it holds, no rebuild needed). Trainer modules (--trainer-modules) register into the
// sources' trainer registry, so with them the sources run.
// Under `npx kepler-model` (and `npm run` scripts) npm starts this file through `sh -c` and forwards a
// signal only to that shell, which dies without passing it on: the command watches for being re-parented
// and then stops as if it had been sent SIGTERM, so killing `npx kepler-model exporter` stops it too.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

if (process.env.npm_lifecycle_event !== undefined) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, "SIGTERM");
  }, 500);
  watch.unref();
}

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
