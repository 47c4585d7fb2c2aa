// Stored pages are inert (issue 34): a pipeline zip carrying report pages with scripts is imported into a
// real registry, then a real browser (Debian's chromium, headless, playwright-core) opens what the
// registry serves. Files the report writer does not produce (report/x.html) are not imported at all;
// a report.html or chart SVG with a script is served under a CSP that forbids scripts: no script runs
// and chromium records the CSP refusal.
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { zipFolderTree } from "../../services/models/index.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { readRegistryConfig } from "../../services/registry/config.js";
import { startRegistry } from "../../services/registry/main.js";
import { importPipelineZip } from "../support/import-pipeline-zip.js";
import { needs, systemTool } from "../support/system-tools.js";

const CHROMIUM = systemTool("chromium");
const FIXTURE = new URL("../fixtures/registry/ec2-fixture", import.meta.url).pathname;
const SCRIPT = "<script>document.title = 'script ran'; window.scriptRan = true;</script>";

let folder: string;
let registry: ServerHandle;
let browser: Browser;
let skipped: Array<{ path: string; reason: string }>;

beforeAll(async () => {
  if (!CHROMIUM.available) return;
  folder = await mkdtemp(join(tmpdir(), "stored-page-csp-"));
  const tree = join(folder, "zip-tree");
  await cp(FIXTURE, tree, { recursive: true });
  await mkdir(join(tree, "report"));
  await writeFile(join(tree, "report", "x.html"), `<!doctype html><title>x</title>${SCRIPT}`);
  await writeFile(
    join(tree, "report", "report.html"),
    `<!doctype html><html><head><title>report</title></head><body>${SCRIPT}<img src=x onerror="window.scriptRan = true"></body></html>`,
  );
  await writeFile(
    join(tree, "report", "power-rapl-sysfs.svg"),
    `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>window.scriptRan = true;</script></svg>`,
  );
  await writeFile(join(tree, "report", "mae-acpi.png"), "<!doctype html><script>window.scriptRan = true;</script>");
  registry = await startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath: join(folder, "models"), rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
  const client = createRegistryClient(registry.address);
  const result = await importPipelineZip(client, "planted", await zipFolderTree(tree));
  client.close();
  skipped = result.skippedModels;
  browser = await chromium.launch({ executablePath: CHROMIUM.path, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await registry?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

const url = (path: string) => `http://${registry.address}${path}`;

/** Opens `path`: the HTTP status, the console errors, and whether any planted script ran. */
async function visit(path: string) {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  try {
    const response = await page.goto(url(path));
    const ran = await page.evaluate(() => (window as unknown as { scriptRan?: boolean }).scriptRan === true);
    return { status: response?.status(), headers: response?.headers() ?? {}, title: await page.title(), ran, errors };
  } finally {
    await page.close();
  }
}

describe("stored report pages in a real browser (chromium)", needs(CHROMIUM), () => {
  it("imports only the files kepler-model report writes; the others are listed as skipped with the reason", async () => {
    expect(skipped.filter((entry) => entry.path.startsWith("report/"))).toEqual([
      { path: "report/mae-acpi.png", reason: "named .png but not a PNG image" },
      {
        path: "report/x.html",
        reason: "not a file kepler-model report writes (report.html, <chart>-<source>.svg/.png, <table>.csv)",
      },
    ]);
    const planted = await visit("/ui/pipeline/planted/report/x.html");
    expect(planted.status).toBe(404);
    expect(planted.ran).toBe(false);
  });

  it("report.html with a script: served under a CSP without scripts, nosniff; nothing runs, chromium records the refusal", async () => {
    const report = await visit("/ui/pipeline/planted/report/report.html");
    expect(report.status).toBe(200);
    expect(report.headers["content-security-policy"]).toContain("script-src 'none'");
    expect(report.headers["x-content-type-options"]).toBe("nosniff");
    expect(report.ran).toBe(false);
    expect(report.title).toBe("report");
    expect(report.errors.some((error) => error.includes("Content Security Policy"))).toBe(true);
  });

  it("a chart SVG with a script, opened on its own: nothing runs", async () => {
    const chart = await visit("/ui/pipeline/planted/report/power-rapl-sysfs.svg");
    expect(chart.status).toBe(200);
    expect(chart.headers["content-type"]).toBe("image/svg+xml");
    expect(chart.ran).toBe(false);
    expect(chart.errors.some((error) => error.includes("Content Security Policy"))).toBe(true);
  });

  it("the model browser's own pages run under the same policy without a single violation", async () => {
    const page = await visit("/ui/pipeline/planted");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.errors).toEqual([]);
  });
});
