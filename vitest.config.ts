import { defineConfig } from "vitest/config";
import { ImageBuildLastSequencer } from "./test/support/image-build-last-sequencer.js";

export default defineConfig({
  test: {
    include: ["services/**/*.test.ts", "wasm-core/**/*.test.ts", "cli/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    pool: "forks",
    // Starts the container image build in the background when test/deploy/image-build.test.ts is in the run.
    globalSetup: ["./test/support/image-build-setup.ts"],
    sequence: { sequencer: ImageBuildLastSequencer },
  },
});
