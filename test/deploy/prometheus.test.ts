// The Prometheus scrape configuration: promtool (Debian's prometheus package, installed by .ci/run)
// accepts it, and Kepler is scraped at the step the training tasks query at.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";
import type { Json } from "./support/rendered-manifests.js";
import { readTektonResources } from "./support/tekton-script.js";

const CONFIG = join(REPO_ROOT, "deploy/prometheus/prometheus.yml");

describe("deploy/prometheus/prometheus.yml", () => {
  it("passes promtool check config", needs(systemTool("promtool")), async () => {
    const { stdout } = await promisify(execFile)("promtool", ["check", "config", CONFIG]);
    expect(stdout).toContain("SUCCESS");
  });

  it("scrapes Kepler's exporter Service every step the Tekton tasks query at", () => {
    const config = parseYaml(readFileSync(CONFIG, "utf8")) as { scrape_configs: Json[] };
    expect(config.scrape_configs.map((job) => job.job_name)).toEqual(["kepler"]);
    const [kepler] = config.scrape_configs;
    expect(kepler.dns_sd_configs).toEqual([
      { names: ["kepler-exporter.kepler.svc.cluster.local"], type: "A", port: 9102, refresh_interval: "30s" },
    ]);
    const steps = readTektonResources()
      .filter((resource) => resource.kind === "Task")
      .flatMap((task) =>
        (task.spec.params as Json[]).filter((param) => param.name === "STEP_SECONDS").map((param) => `${param.default}s`),
      );
    expect(steps.length).toBe(2);
    for (const step of steps) expect(kepler.scrape_interval).toBe(step);
  });
});
