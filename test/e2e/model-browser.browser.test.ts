// A real browser (Debian's chromium, headless, driven by playwright-core) opens the registry's model
// browser page and a stored accuracy report, finds the model rows and chart elements, saves screenshots,
// and fails on any console error. Models and the report come from the CLI on the bundled coremark data.
import { readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { readRegistryConfig } from "../../services/registry/config.js";
import { startRegistry } from "../../services/registry/main.js";
import { readZip } from "../../services/models/index.js";
import { extractorFixturePath } from "../support/extractor-fixtures.js";
import { runCliCaptured as run, trainCoremarkWithCli } from "../support/run-cli.js";
import { needs, systemTool } from "../support/system-tools.js";

const CHROMIUM = systemTool("chromium");
const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");
const TRAINERS = ["LinearRegressionTrainer", "KNeighborsRegressorTrainer"];

let folder: string;
let modelPath: string;
let registry: ServerHandle;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM.available) return;
  folder = await mkdtemp(join(tmpdir(), "model-browser-"));
  modelPath = join(folder, "models");
  await trainCoremarkWithCli(modelPath, "browsed", {
    input: COREMARK,
    sources: ["rapl-sysfs", "acpi"],
    featureGroups: ["CounterOnly"],
    trainers: TRAINERS,
  });
  // Without --out the report goes to the pipeline's report/ folder, which the page shows.
  const report = await run(["report", "--pipeline", "browsed", "--input", COREMARK, "--model-path", modelPath]);
  expect(report.code, report.stderr).toBe(0);
  registry = await startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
  browser = await chromium.launch({
    executablePath: CHROMIUM.path,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await registry?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

/** A page that records console errors and uncaught exceptions. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, errors };
}

describe("model browser and report in a real browser (chromium)", needs(CHROMIUM), () => {
  it("/ui lists the pipeline; its page shows node types, the models with MAE per component, the best marked, and the report's charts", async () => {
    const { page, errors } = await openPage();
    const base = `http://127.0.0.1:${registry.port}`;
    await page.goto(`${base}/ui`);
    const pipelineRow = page.locator('tr.pipeline[data-pipeline="browsed"]');
    await expect(pipelineRow.locator("td").nth(2).textContent()).resolves.toBe("4");
    await pipelineRow.locator("a").click();
    await page.waitForURL(`${base}/ui/pipeline/browsed`);
    expect(await page.locator("h1").textContent()).toBe("Pipeline browsed");
    const models = page.locator("tr.model");
    expect(await models.count()).toBe(4);
    // One best model per source (CounterOnly AbsPower), and the row shows its per-component errors.
    expect(await page.locator("tr.model.best").count()).toBe(2);
    const knn = page.locator('tr.model[data-source="rapl-sysfs"][data-model="KNeighborsRegressorTrainer_0"]');
    expect(await knn.locator("td").last().textContent()).toMatch(/^package \d+\.\d\d W \/ \d+\.\d\d %/);
    // The report's charts load (10 SVGs: 5 per source, prediction intervals included), and the full report is linked.
    const charts = page.locator("figure.chart img");
    expect(await charts.count()).toBe(10);
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll("figure.chart img")).every((img) => (img as HTMLImageElement).naturalWidth > 0),
    );
    expect(await page.locator("a.report").getAttribute("href")).toBe("/ui/pipeline/browsed/report/report.html");
    const shot = join(folder, "model-browser.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("the report file opens offline with its model rows and charts", async () => {
    const { page, errors } = await openPage();
    await page.goto(pathToFileURL(join(modelPath, "browsed", "report", "report.html")).href);
    expect(await page.locator("tr.model").count()).toBe(2 * 1 + 2 * 4); // acpi: 2 models x 1 component, rapl: 2 x 4
    expect(await page.locator("tr.model.chosen").count()).toBe(1 + 4);
    expect(await page.locator("figure.chart svg").count()).toBe(10);
    expect(await page.locator("#chart-power-rapl-sysfs svg path").count()).toBeGreaterThan(4);
    const shot = join(folder, "report.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect((await stat(shot)).size).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("models export ships the stored report next to the README, which links it", async () => {
    const output = join(folder, "browsed.zip");
    const exported = await run(["models", "export", "browsed", "--output", output, "--registry-address", registry.address]);
    expect(exported.code, exported.stderr).toBe(0);
    const entries = readZip(readFileSync(output));
    const names = entries.map((entry) => entry.name);
    expect(names).toContain("report/report.html");
    expect(names.filter((name) => name.startsWith("report/") && name.endsWith(".svg"))).toHaveLength(10);
    expect(names.filter((name) => name.startsWith("report/") && name.endsWith(".png"))).toHaveLength(10);
    const readme = Buffer.from(entries.find((entry) => entry.name === "README.md")!.data).toString();
    expect(readme).toContain("- Accuracy report: [report/report.html](report/report.html)");
    // Imported under another name, the report comes along and the page shows it.
    const imported = await run(["models", "import", output, "--pipeline", "mirrored", "--registry-address", registry.address]);
    expect(imported.code, imported.stderr).toBe(0);
    const { page, errors } = await openPage();
    await page.goto(`http://127.0.0.1:${registry.port}/ui/pipeline/mirrored`);
    expect(await page.locator("figure.chart img").count()).toBe(10);
    expect(errors).toEqual([]);
    await page.close();
  });
});
