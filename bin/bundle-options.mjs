// The esbuild options every bundle of the command shares (npm run build:cli, and the reference benchmark's
// bundle beside it). The libraries every command loads are bundled: one file to read and compile instead
// of a few hundred resolved one by one. Those loaded on demand, by path, with worker transports, or as
// native code stay in node_modules.
export const NODE_BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  outExtension: { ".js": ".mjs" },
  external: [
    "@aws-sdk/*",
    "@smithy/*",
    "@opentelemetry/*",
    "@resvg/*",
    "vega",
    "vega-lite",
    "google-protobuf",
    "nice-grpc-server-reflection",
    "pino",
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
