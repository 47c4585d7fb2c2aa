// The esbuild options every bundle of the command shares (npm run build:cli, and the reference benchmark's
// bundle beside it). The libraries every command loads are bundled: one file to read and compile instead
// of a few hundred resolved one by one. Those loaded on demand, by path, or as native code stay in
// node_modules (pino is bundled too; its pretty transport loads the installed copy, see kit/observe/logger.ts).
export const NODE_BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  outExtension: { ".js": ".mjs" },
  external: [
    "@aws-sdk/*",
    "@smithy/*",
    // Tracing's SDK loads only when tracing is on; the small API every process imports is bundled (its
    // copies share one global registry, so the SDK's and ours work together).
    "@opentelemetry/core",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-trace-base",
    "@resvg/*",
    "vega",
    "vega-lite",
    "google-protobuf",
    "nice-grpc-server-reflection",
    "tsx",
    "esbuild",
  ],
  // Bundled CommonJS libraries require Node's built-in modules: each output module gets a require.
  banner: {
    js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);',
  },
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
};
