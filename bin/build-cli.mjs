// npm run build:cli: bundles the command and its worker threads' modules from the TypeScript sources
// into dist/ (kepler-model.mjs, the worker runtime and task modules worker-runtime.mjs, fit-worker.mjs,
// extract-worker.mjs, isolate-worker.mjs, the estimator socket's thread estimator-socket-thread.mjs, a service's own thread service-thread-entry.mjs, and shared chunks),
// with the files they read at run time beside them, so `kepler-model` starts without compiling
// TypeScript (bin/bundle-options.mjs: what is bundled).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { NODE_BUNDLE_OPTIONS } from "./bundle-options.mjs";

mkdirSync("dist", { recursive: true });
// Chunk names change with their content: drop the previous build's.
for (const name of readdirSync("dist")) if (name.startsWith("chunk-")) rmSync(`dist/${name}`);
await build({
  entryPoints: {
    "kepler-model": "cli/main.ts",
    "fit-worker": "services/trainer/fit-worker.ts",
    "extract-worker": "services/extractor/extract-worker.ts",
    "isolate-worker": "services/isolator/isolate-worker.ts",
    "worker-runtime": "services/kit/workers/worker-runtime.ts",
    "estimator-socket-thread": "services/estimator/estimator-socket-thread.ts",
    "service-thread-entry": "services/mesh/service-thread-entry.ts",
  },
  outdir: "dist",
  // All in dist/ itself: modules find their files and workers beside them (services/kit/files/asset-url.ts).
  chunkNames: "chunk-[hash]",
  ...NODE_BUNDLE_OPTIONS,
});
copyFileSync("services/kit/workers/worker-bootstrap.js", "dist/worker-bootstrap.js");
copyFileSync("services/generated/descriptor-set.binpb", "dist/descriptor-set.binpb");
copyFileSync("services/mesh/default-data/coremark-2023-09-28.json.gz", "dist/coremark-2023-09-28.json.gz");
copyFileSync("wasm-core/build/core.wasm", "dist/core.wasm");
// The commit the bundle is built from (services/domain/build-info.ts): KEPLER_MODEL_REVISION (the
// image's build argument, its build has no .git), else the checkout's HEAD, else "unknown".
function revision() {
  if ((process.env.KEPLER_MODEL_REVISION ?? "") !== "") return process.env.KEPLER_MODEL_REVISION;
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}
writeFileSync("dist/revision.txt", `${revision()}\n`);
