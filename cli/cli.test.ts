import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    expect(unknownCommand.stderr).toMatch(/^kepler-model: unknown command "fly" \(commands: serve, query, [^\n]*\)\n$/);
    const unknownFlag = await run(["serve", "--colour", "blue"]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain("kepler-model serve: unknown flag --colour");
  });

  it("rejects an unknown service name", async () => {
    const { code, stderr } = await run(["serve", "teapot"]);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown service "teapot" (services: registry, estimator, pipeline, extractor, isolator, trainer)');
  });

  it("stops when the shell npm started it through is killed (npx forwards signals only to that shell)", async () => {
    const modelPath = await mkdtemp(join(tmpdir(), "cli-signal-"));
    try {
      const bin = new URL("../bin/kepler-model.js", import.meta.url).pathname;
      // `; true` keeps sh from exec-ing node, as npm's `sh -c` does not either.
      const command = `node ${bin} serve registry --registry-port 0 --metrics-port -1 --model-path ${modelPath}; true`;
      const shell = spawn("sh", ["-c", command], {
        env: { ...process.env, npm_lifecycle_event: "npx", KEPLER_MODEL_LOG_FORMAT: "json" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const collect = (data: Buffer) => {
        output += data.toString();
        if (output.includes("services listening") && shell.exitCode === null) shell.kill("SIGTERM");
      };
      shell.stdout.on("data", collect);
      shell.stderr.on("data", collect);
      // The pipes close only when every process holding them (the shell and node) has exited.
      await Promise.all([
        new Promise((resolve) => shell.stdout.on("close", resolve)),
        new Promise((resolve) => shell.stderr.on("close", resolve)),
      ]);
      expect(output).toContain("services listening");
      expect(output).toMatch(/"signal":"SIGTERM","msg":"shutting down"/);
      expect(output).toMatch(/"service":"registry","address":"127\.0\.0\.1:\d+","msg":"stopped"/);
    } finally {
      await rm(modelPath, { recursive: true, force: true });
    }
  });
});
