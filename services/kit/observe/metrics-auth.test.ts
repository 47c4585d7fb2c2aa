// /metrics behind --metrics-tokens-file: 401 without one of its bearer tokens, the metrics with one; in
// process (startMetricsServer) and through `kepler-model serve`, the real process.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnNode } from "../../../test/support/child-process.js";
import { silentLogger } from "./logger.js";
import { createMetricsAuthorizer } from "./metrics-auth.js";
import { startMetricsServer } from "./metrics.js";

const SCRAPER_TOKEN = "scraper-token-0123456789";
let folder: string;
let tokensFile: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "metrics-auth-"));
  tokensFile = join(folder, "metrics-tokens");
  await writeFile(tokensFile, `prometheus:${SCRAPER_TOKEN}:read\n`);
  await chmod(tokensFile, 0o600);
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function scrape(url: string, authorization?: string) {
  const response = await fetch(url, authorization === undefined ? {} : { headers: { authorization } });
  return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.text() };
}

describe("/metrics with --metrics-tokens-file", () => {
  it("answers 401 with a Bearer challenge without a listed token, the metrics with one", async () => {
    const authorize = createMetricsAuthorizer(tokensFile, silentLogger());
    const server = await startMetricsServer("127.0.0.1", 0, { authorize });
    try {
      const url = `http://127.0.0.1:${server.port}/metrics`;
      for (const header of [undefined, "Bearer not-a-listed-token-000", `Basic ${SCRAPER_TOKEN}`, SCRAPER_TOKEN]) {
        const refused = await scrape(url, header);
        expect([refused.status, refused.challenge], String(header)).toEqual([401, 'Bearer realm="metrics"']);
        expect(refused.body).not.toContain("kepler_model_build_info");
      }
      const allowed = await scrape(url, `Bearer ${SCRAPER_TOKEN}`);
      expect(allowed.status).toBe(200);
      expect(allowed.body).toMatch(/^kepler_model_build_info\{version="[^"]+",revision="[^"]*"\} 1$/m);
    } finally {
      await server.close();
    }
  });

  it("an unreadable or empty tokens file fails naming the flag; no file leaves /metrics open", async () => {
    expect(() => createMetricsAuthorizer(join(folder, "missing"), silentLogger())).toThrow(
      /^--metrics-tokens-file: cannot use .*missing: ENOENT/,
    );
    const empty = join(folder, "empty");
    await writeFile(empty, "# nothing\n");
    expect(() => createMetricsAuthorizer(empty, silentLogger())).toThrow("--metrics-tokens-file: cannot use");
    expect(createMetricsAuthorizer("", silentLogger())).toBeUndefined();
  });

  it("kepler-model serve --metrics-tokens-file protects the process's /metrics", async () => {
    const serve = spawnNode([
      "bin/kepler-model.js",
      "serve",
      "registry",
      "--no-default-models",
      `--model-path=${join(folder, "models")}`,
      "--registry-port=0",
      "--metrics-port=0",
      `--metrics-tokens-file=${tokensFile}`,
      "--log-format=json",
    ]);
    try {
      const [, url] = await serve.waitForOutput(/metrics\s+(http:\/\/\S+\/metrics)/, 60_000);
      expect((await scrape(url as string)).status).toBe(401);
      const allowed = await scrape(url as string, `Bearer ${SCRAPER_TOKEN}`);
      expect(allowed.status).toBe(200);
      expect(allowed.body).toContain("# TYPE kepler_model_rpc_requests_total counter");
    } finally {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
  }, 90_000);
});
