// ESLint (flat config) with typescript-eslint's recommended rules. AssemblyScript sources are
// excluded: AS has its own semantics (== on numbers, i32/f64 types) that these rules misread.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "services/generated/",
      "wasm-core/build/",
      "dist/",
      "wasm-core/assembly/",
      ".tmp/",
      ".scratch/",
      ".kepler-model/",
      "coverage/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        Buffer: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        performance: "readonly",
        TextDecoder: "readonly",
        TextEncoder: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        WebAssembly: "readonly",
        NodeJS: "readonly",
        structuredClone: "readonly",
        queueMicrotask: "readonly",
        setImmediate: "readonly",
        fetch: "readonly",
        Response: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
);
