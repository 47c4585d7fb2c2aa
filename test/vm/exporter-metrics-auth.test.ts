// `kepler-model exporter --metrics-tokens-file`: the exporter's /metrics behind the kit's bearer check, the
// services' own (metrics-auth.ts): 401 with a Bearer challenge without a listed token, the modelled watts
// in Prometheus text with one, and a warning naming the file when others may read it.
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningChild } from "../support/child-process.js";
import { spawnExporter } from "./support/exporter-process.js";
import { writeVmModel } from "./support/modelled-vm.js";
import { MODEL_A, scratchFolder } from "./support/tree-scenario.js";

const SCRAPER_TOKEN = "scraper-token-0123456789";
const dir = scratchFolder("exporter-metrics-auth-");
let exporter: RunningChild | undefined;

afterAll(async () => {
  exporter?.child.kill("SIGTERM");
  await exporter?.exited;
  rmSync(dir, { recursive: true, force: true });
});

async function scrape(url: string, authorization?: string) {
  const response = await fetch(url, authorization === undefined ? {} : { headers: { authorization } });
  return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.text() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("exporter /metrics with --metrics-tokens-file", () => {
  it("answers 401 without a listed token, the modelled watts with one, and warns of a 0644 tokens file", async () => {
    const modelPath = join(dir, "model.zip");
    writeVmModel(modelPath, MODEL_A);
    const tokensFile = join(dir, "metrics-tokens");
    writeFileSync(tokensFile, `prometheus:${SCRAPER_TOKEN}:read\n`);
    chmodSync(tokensFile, 0o644);
    // Counters from this machine's /proc: the real exporter as a VM runs it.
    exporter = spawnExporter(["--model-file", modelPath, "--metrics-tokens-file", tokensFile]);
    const [, url] = await exporter.waitForOutput(/exporter: (http:\/\/127\.0\.0\.1:\d+\/metrics)/, 60_000);
    const warning = exporter
      .output()
      .split("\n")
      .filter((line) => line.includes("readable by group or others"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warning).toEqual([
      expect.objectContaining({ level: 40, file: tokensFile, mode: "0644", flag: "--metrics-tokens-file" }),
    ]);

    for (const header of [undefined, "Bearer not-a-listed-token-000", `Basic ${SCRAPER_TOKEN}`]) {
      const refused = await scrape(url!, header);
      expect([refused.status, refused.challenge], String(header)).toEqual([401, 'Bearer realm="metrics"']);
      expect(refused.body).toBe("/metrics needs a bearer token of --metrics-tokens-file: send Authorization: Bearer <token>");
    }

    let allowed = await scrape(url!, `Bearer ${SCRAPER_TOKEN}`);
    for (let i = 0; i < 20 && !allowed.body.includes("kepler_node_cpu_watts{"); i++) {
      await sleep(250);
      allowed = await scrape(url!, `Bearer ${SCRAPER_TOKEN}`);
    }
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain("# TYPE kepler_node_cpu_watts gauge\n");
    // MODEL_A's package zone: 10 W idle + 40 W x the user ratio (0..1).
    const packageWatts =
      /^kepler_node_cpu_watts\{node_name="[^"]+",zone="package",source="model",model="LinearRegressionTrainer_0"\} (\S+)$/m.exec(
        allowed.body,
      );
    expect(packageWatts).not.toBeNull();
    expect(Number(packageWatts![1])).toBeGreaterThanOrEqual(10);
    expect(Number(packageWatts![1])).toBeLessThanOrEqual(50);
  }, 90_000);
});
