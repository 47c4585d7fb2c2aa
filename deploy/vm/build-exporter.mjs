// npm run build:exporter: bundles the stand-alone VM exporter (cli/exporter-main.ts) into
// dist/kepler-model-exporter.mjs with a copy of the wasm module beside it, so it runs on plain Node
// (no TypeScript loader) with only the libraries the exporter uses.
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

mkdirSync("dist", { recursive: true });
await build({
  entryPoints: ["cli/exporter-main.ts"],
  outfile: "dist/kepler-model-exporter.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Modules bundled from CommonJS call require(): give them one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  // pino's optional pretty printer runs in a worker from its own package; the exporter logs JSON.
  external: ["pino-pretty"],
  logLevel: "warning",
});
copyFileSync("wasm-core/build/core.wasm", "dist/core.wasm");
