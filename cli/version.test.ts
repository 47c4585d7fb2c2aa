// One version everywhere (issue 33): package.json's version in `kepler-model --version`, the
// kepler_model_build_info metric, the registry's /ui, the models' metadata, the image label and the
// CHANGELOG; the revision is the checkout's commit.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDockerfile } from "../test/deploy/support/dockerfile.js";
import { REPO_ROOT, spawnNode } from "../test/support/child-process.js";
import { silentLogger } from "../services/kit/observe/logger.js";
import { startMetricsServer } from "../services/kit/observe/metrics.js";
import { startRegistry } from "../services/registry/main.js";
import { createModelMetadata } from "../services/models/model-metadata.js";

const VERSION: string = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version;

/**
 * Whether `revision` (full or 12-digit) is the checkout's HEAD or an ancestor of it: other commits may land
 * while a test runs (a shared checkout), after the code under test read HEAD.
 */
function isCheckoutCommit(revision: string): boolean {
  try {
    const git = (args: string[]) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8", stdio: "pipe" }).trim();
    return git(["merge-base", "--is-ancestor", git(["rev-parse", "--verify", `${revision}^{commit}`]), "HEAD"]) === "";
  } catch {
    return false;
  }
}

describe("the version", () => {
  it("kepler-model --version prints package.json's version and the checkout's commit", async () => {
    const run = spawnNode(["bin/kepler-model.js", "--version"]);
    expect(await run.exited).toBe(0);
    const line = /^kepler-model (\S+) \(revision ([0-9a-f]{12})\)\n$/.exec(run.output());
    expect(line?.[1], run.output()).toBe(VERSION);
    expect(isCheckoutCommit(line![2]!), `${line![2]} is this checkout's commit`).toBe(true);
  }, 30_000);

  it("/metrics carries kepler_model_build_info{version,revision} 1", async () => {
    const metrics = await startMetricsServer("127.0.0.1", 0);
    try {
      const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
      const series = /^kepler_model_build_info\{version="([^"]*)",revision="([0-9a-f]{40})"\} 1$/m.exec(text);
      expect(series?.[1], text).toBe(VERSION);
      expect(isCheckoutCommit(series![2]!)).toBe(true);
    } finally {
      await metrics.close();
    }
  });

  it("the registry's /ui pages name the version", async () => {
    const folder = await mkdtemp(join(tmpdir(), "kepler-version-ui-"));
    const registry = await startRegistry(
      { host: "127.0.0.1", port: 0, modelPath: folder, rescanIntervalMs: 0, sourcePipelines: [] },
      { logger: silentLogger() },
    );
    try {
      const page = await (await fetch(`http://${registry.address}/ui`)).text();
      const footer = /<footer class="version">kepler-model (\S+) \(revision ([0-9a-f]{12})\)<\/footer>/.exec(page);
      expect(footer?.[1], page).toBe(VERSION);
      expect(isCheckoutCommit(footer![2]!)).toBe(true);
    } finally {
      await registry.close();
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("a model's metadata records the version that trained it, before format_version", () => {
    const metadata = createModelMetadata({
      modelName: "LinearRegressionTrainer_0",
      modelClass: "scikit",
      features: ["bpf_cpu_time_ms"],
      feFiles: [],
      outputType: "AbsPower",
      components: [{ component: "package", maeWatts: 1, mapePercent: 2 }],
      trainedByVersion: VERSION,
    });
    expect(Object.keys(metadata).slice(-2)).toEqual(["trained_by_version", "format_version"]);
    expect(metadata.trained_by_version).toBe(VERSION);
  });

  it("the image's version label and the CHANGELOG's newest release are package.json's version", async () => {
    const dockerfile = parseDockerfile(await readFile(join(REPO_ROOT, "Dockerfile"), "utf8"));
    const runtime = dockerfile.stages.find((stage) => stage.name === "runtime");
    const labels = runtime?.instructions.filter((instruction) => instruction.keyword === "LABEL").map((i) => i.args) ?? [];
    expect(labels.join(" ")).toContain(`org.opencontainers.image.version="${VERSION}"`);
    const changelog = await readFile(join(REPO_ROOT, "CHANGELOG.md"), "utf8");
    expect(/^## \[?([^\]\s]+)/m.exec(changelog)?.[1]).toBe(VERSION);
  });
});
