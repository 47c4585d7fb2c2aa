import { describe, expect, it } from "vitest";
import { runCliCaptured as run } from "../test/support/run-cli.js";

describe("kepler-model CLI", () => {
  it("lists its commands with --help", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: kepler-model <command> [flags]");
    expect(stdout).toMatch(/^ {2}serve +Run the gRPC services/m);
  });

  it("documents serve's flags with their env vars and defaults", async () => {
    const { code, stdout } = await run(["serve", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--estimator-port <value>");
    expect(stdout).toContain("Env KEPLER_MODEL_ESTIMATOR_PORT, default 8101.");
    expect(stdout).toContain("--registry-address <value>");
  });

  it("rejects an unknown command and an unknown flag with exit code 2", async () => {
    const unknownCommand = await run(["fly"]);
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain('kepler-model: unknown command "fly"');
    const unknownFlag = await run(["serve", "--colour", "blue"]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("kepler-model serve: unknown flag --colour");
  });

  it("rejects an unknown service name", async () => {
    const { code, stderr } = await run(["serve", "teapot"]);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown service "teapot" (services: registry, estimator, pipeline, extractor, isolator, trainer)');
  });
});
