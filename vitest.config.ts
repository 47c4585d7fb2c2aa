import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["services/**/*.test.ts", "wasm-core/**/*.test.ts", "cli/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    pool: "forks",
  },
});
