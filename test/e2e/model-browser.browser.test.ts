// A real browser (Debian's chromium, headless, driven by playwright-core) opens the registry's model browser:
// an empty registry, a pipeline of 2 trainers, a model page, a pipeline of 10 trainers and the comparison of
// the two, and a stored accuracy report offline. Every page is checked for console errors and for
// placeholders (-1, NaN, undefined) in its text, and screenshotted into SCREENSHOTS (paths printed). Models
// and reports come from the CLI on the bundled coremark data; expected numbers from the stored model files.
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
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
const TRAINERS = ["LinearRegressionTrainer", "SGDRegressorTrainer"];
const TEN_TRAINERS = [
  "LinearRegressionTrainer",
  "KNeighborsRegressorTrainer",
  "PolynomialRegressionTrainer",
  "GradientBoostingRegressorTrainer",
  "SVRRegressorTrainer",
  "XgboostFitTrainer",
  "SGDRegressorTrainer",
  "LogarithmicRegressionTrainer",
  "LogisticRegressionTrainer",
  "ExponentialRegressionTrainer",
];
/** Where the screenshots stay after the run (the temporary model folder does not). */
const SCREENSHOTS = process.env.KEPLER_MODEL_SCREENSHOTS ?? join(tmpdir(), "kepler-model-ui-screenshots");
const RAPL_COUNTER_ONLY = ["rapl-sysfs", "AbsPower", "CounterOnly"];

let folder: string;
let modelPath: string;
let registry: ServerHandle;
let emptyRegistry: ServerHandle;
let browser: Browser;
let base: string;

async function trainAndReport(pipeline: string, sources: string[], trainers: string[]): Promise<void> {
  await trainCoremarkWithCli(modelPath, pipeline, { input: COREMARK, sources, featureGroups: ["CounterOnly"], trainers });
  // Without --out the report goes to the pipeline's report/ folder, which the page shows.
  const report = await run(["report", "--pipeline", pipeline, "--input", COREMARK, "--model-path", modelPath]);
  expect(report.code, report.stderr).toBe(0);
}

beforeAll(async () => {
  if (!CHROMIUM.available) return;
  folder = await mkdtemp(join(tmpdir(), "model-browser-"));
  modelPath = join(folder, "models");
  await mkdir(SCREENSHOTS, { recursive: true });
  await trainAndReport("browsed", ["rapl-sysfs", "acpi"], TRAINERS);
  await trainAndReport("ten", ["rapl-sysfs"], TEN_TRAINERS);
  const config = { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, rescanIntervalMs: 0 };
  registry = await startRegistry({ ...config, modelPath }, { logger: silentLogger() });
  emptyRegistry = await startRegistry({ ...config, modelPath: join(folder, "empty") }, { logger: silentLogger() });
  base = `http://127.0.0.1:${registry.port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM.path,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"].concat([
      "--disable-component-update",
      "--disable-sync",
    ]),
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await registry?.close();
  await emptyRegistry?.close();
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

/** Waits for the images, refuses placeholders in the text, saves a full-page screenshot and prints its path. */
async function checkAndShoot(page: Page, errors: string[], name: string): Promise<void> {
  await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete && img.naturalWidth > 0));
  const text = await page.locator("body").innerText();
  expect(text.match(/(?<![\w.])-1(?![\d.])|\bNaN\b|\bundefined\b/g), `placeholders on ${page.url()}`).toBeNull();
  const shot = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: shot, fullPage: true });
  expect((await stat(shot)).size).toBeGreaterThan(10_000);
  console.log(`screenshot ${name}: ${shot} (${page.url()})`);
  expect(errors).toEqual([]);
  await page.close();
}

/** 3 significant digits, written out for expected values: 12.3273 -> "12.3", 0.0123456 -> "0.0123". */
function threeDigits(value: number): string {
  if (value === 0) return "0";
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return String(Number(value.toFixed(digits)));
}

/** A stored model's zip entries, read from the model folder (not through the registry). */
function modelFile(pipeline: string, model: string, name: string): Record<string, unknown> {
  const entries = readZip(readFileSync(join(modelPath, pipeline, ...RAPL_COUNTER_ONLY, `${model}.zip`)));
  return JSON.parse(Buffer.from(entries.find((e) => e.name === name)!.data).toString()) as Record<string, unknown>;
}

const heldOutMae = (pipeline: string, model: string) =>
  (modelFile(pipeline, model, "metadata.json").held_out as { mae: number }).mae;

describe("model browser and report in a real browser (chromium)", needs(CHROMIUM), () => {
  it("an empty registry's /ui says how to get models", async () => {
    const { page, errors } = await openPage();
    await page.goto(`http://127.0.0.1:${emptyRegistry.port}/ui`);
    const empty = await page.locator("#no-pipelines").innerText();
    expect(empty).toContain("No pipelines yet");
    expect(empty).toContain("npx kepler-model pipeline run --pipeline my-nodes --input response.json");
    expect(empty).toContain("npx kepler-model models import");
    expect(await page.locator("table").count()).toBe(0);
    await checkAndShoot(page, errors, "ui-empty");
  }, 60_000);

  it("a pipeline's page: node types, models with 3-digit errors, the best marked, 0 W components left out, charts ordered and captioned", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/ui`);
    const pipelineRow = page.locator('tr.pipeline[data-pipeline="browsed"]');
    await expect(pipelineRow.locator("td").nth(2).textContent()).resolves.toBe("4");
    await pipelineRow.locator("td").first().locator("a").click();
    await page.waitForURL(`${base}/ui/pipeline/browsed`);
    expect(await page.locator("h1").textContent()).toBe("Pipeline browsed");
    expect(await page.locator("tr.model").count()).toBe(4);
    expect(await page.locator("tr.model.best").count()).toBe(2); // one per source (CounterOnly AbsPower)
    const linear = page.locator('tr.model[data-source="rapl-sysfs"][data-model="LinearRegressionTrainer_0"]');
    const mae = heldOutMae("browsed", "LinearRegressionTrainer_0");
    expect(await linear.locator("td.mae").textContent()).toBe(threeDigits(mae));
    // core and uncore measure 0 W on this recording: named once, not in the rows.
    const errorsCell = await linear.locator("td").last().innerText();
    expect(errorsCell).toMatch(/^package [\d.]+ W \/ [\d.]+ %\ndram [\d.]+ W \/ [\d.]+ %$/);
    for (const number of errorsCell.match(/[\d.]+/g)!) expect(number.replace(/^[0.]+|\./g, "").length).toBeLessThanOrEqual(3);
    expect(await page.locator(".empty-components").textContent()).toBe("core, uncore");
    const captions = await page.locator("figure.chart figcaption").allTextContents();
    const kinds = [
      "MAE per trainer",
      "predicted vs measured",
      "prediction intervals",
      "error against load",
      "error distribution",
    ];
    expect(captions).toHaveLength(10);
    captions.forEach((caption, i) => expect(caption).toContain(`${i < 5 ? "acpi" : "rapl-sysfs"}: ${kinds[i % 5]}`));
    expect(await page.locator("a.report").getAttribute("href")).toBe("/ui/pipeline/browsed/report/report.html");
    await checkAndShoot(page, errors, "ui-pipeline");
  }, 60_000);

  it("a model page: coefficients from the archive and the per-row predictions CSV, whose rows give the held-out MAE", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/ui/pipeline/browsed`);
    await page.locator('tr.model[data-source="rapl-sysfs"][data-model="LinearRegressionTrainer_0"] a').click();
    await page.waitForURL(`${base}/ui/pipeline/browsed/model/rapl-sysfs/AbsPower/CounterOnly/LinearRegressionTrainer_0`);
    const stored = modelFile("browsed", "LinearRegressionTrainer_0", "package.json") as {
      coefficients: number[];
      intercept: number;
    };
    const features = (modelFile("browsed", "LinearRegressionTrainer_0", "scaler.json") as { features: string[] }).features;
    const table = page.locator("h3.component", { hasText: "package" }).locator("xpath=following-sibling::table[1]");
    const rows = await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [tr.children[0]!.textContent, tr.children[1]!.textContent]));
    expect(rows).toEqual([
      ...features.map((feature, i) => [feature, threeDigits(stored.coefficients[i]!)]),
      ["intercept", threeDigits(stored.intercept)],
    ]);
    const href = await page.locator("a.predictions").getAttribute("href");
    const csv = await (await fetch(`${base}${href}`)).text();
    const [header, ...lines] = csv.trimEnd().split("\n");
    const columns = header!.split(",");
    const metadata = modelFile("browsed", "LinearRegressionTrainer_0", "metadata.json") as {
      held_out: { row_count: number; timestamps: number[]; components: Record<string, { mae: number }> };
    };
    expect(lines).toHaveLength(metadata.held_out.row_count);
    const cells = lines.map((line) => line.split(",").map(Number));
    const byTime = (a: number, b: number) => a - b;
    expect(cells.map((row) => row[1]!).sort(byTime)).toEqual([...metadata.held_out.timestamps].sort(byTime));
    const measured = columns.indexOf("package_measured_watts");
    const predicted = columns.indexOf("package_predicted_watts");
    const csvMae = cells.reduce((sum, row) => sum + Math.abs(row[predicted]! - row[measured]!), 0) / cells.length;
    expect(csvMae).toBeCloseTo(metadata.held_out.components.package!.mae, 6);
    await checkAndShoot(page, errors, "ui-model");
  }, 60_000);

  it("ten trainers: every model listed, charts as small multiples, a tree model's page summarizes its trees", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/ui/pipeline/ten`);
    expect(await page.locator("tr.model").count()).toBe(10);
    expect(await page.locator("figure.chart img").count()).toBe(5);
    const power = await readFile(join(modelPath, "ten", "report", "power-rapl-sysfs.svg"), "utf8");
    for (const trainer of TEN_TRAINERS) expect(power).toMatch(new RegExp(`package: ${trainer}(_0)?( \\(chosen\\))?<`));
    expect(power).not.toContain("core: ");
    await checkAndShoot(page, errors, "ui-ten-trainers");

    const model = await openPage();
    await model.page.goto(`${base}/ui/pipeline/ten/model/rapl-sysfs/AbsPower/CounterOnly/GradientBoostingRegressorTrainer_0`);
    const trees = (modelFile("ten", "GradientBoostingRegressorTrainer_0", "package.json") as { trees: unknown[] }).trees;
    const summary = await model.page
      .locator("h3.component", { hasText: "package" })
      .locator("xpath=following-sibling::p[2]")
      .textContent();
    expect(summary).toMatch(new RegExp(`^${trees.length} trees, \\d+ leaves in all`));
    await checkAndShoot(model.page, model.errors, "ui-tree-model");
  }, 120_000);

  it("compares two pipelines: the best model of each per group, the lower MAE marked", async () => {
    const { page, errors } = await openPage();
    await page.goto(`${base}/ui`);
    await page.locator('tr.pipeline[data-pipeline="browsed"] a.compare', { hasText: "ten" }).click();
    await page.waitForURL(`${base}/ui/compare/browsed/ten`);
    const bestOf = (pipeline: string, trainers: string[]) =>
      Math.min(...trainers.map((trainer) => heldOutMae(pipeline, `${trainer}_0`)));
    const rapl = page.locator('tr.group[data-group="rapl-sysfs/AbsPower/CounterOnly"]');
    const [browsedMae, tenMae] = [bestOf("browsed", TRAINERS), bestOf("ten", TEN_TRAINERS)];
    expect(await rapl.locator("td.mae").allTextContents()).toEqual([threeDigits(browsedMae), threeDigits(tenMae)]);
    expect(tenMae).toBeLessThan(browsedMae); // ten trainers include the two, and KNN does better on this recording
    expect(await rapl.locator("td.mae.better").textContent()).toBe(threeDigits(tenMae));
    // acpi only in browsed: the other side is empty and it is not counted.
    expect(await page.locator('tr.group[data-group="acpi/AbsPower/CounterOnly"] td').nth(5).textContent()).toBe("-");
    expect(await page.locator(".wins-b").textContent()).toBe("1");
    await checkAndShoot(page, errors, "ui-compare");
  }, 60_000);

  it("the report file opens offline with its model rows and charts", async () => {
    const { page, errors } = await openPage();
    await page.goto(pathToFileURL(join(modelPath, "browsed", "report", "report.html")).href);
    // acpi: 2 models x 1 component; rapl-sysfs: 2 models x 2 (core and uncore measure 0 W and are left out)
    expect(await page.locator("tr.model").count()).toBe(2 * 1 + 2 * 2);
    expect(await page.locator("tr.model.chosen").count()).toBe(1 + 2);
    expect(await page.locator("figure.chart svg").count()).toBe(10);
    expect(await page.locator("#chart-power-rapl-sysfs svg path").count()).toBeGreaterThan(4);
    await checkAndShoot(page, errors, "report");
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
    expect(names.filter((name) => name.startsWith("report/predictions-") && name.endsWith(".csv"))).toHaveLength(4);
    const readme = Buffer.from(entries.find((entry) => entry.name === "README.md")!.data).toString();
    expect(readme).toContain("- Accuracy report: [report/report.html](report/report.html)");
    // Imported under another name, the report comes along and the page shows it.
    const imported = await run(["models", "import", output, "--pipeline", "mirrored", "--registry-address", registry.address]);
    expect(imported.code, imported.stderr).toBe(0);
    const { page, errors } = await openPage();
    await page.goto(`${base}/ui/pipeline/mirrored`);
    expect(await page.locator("figure.chart img").count()).toBe(10);
    await page.goto(`${base}/ui/pipeline/mirrored/model/rapl-sysfs/AbsPower/CounterOnly/LinearRegressionTrainer_0`);
    const csv = await fetch(`${base}${await page.locator("a.predictions").getAttribute("href")}`);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect((await csv.text()).split("\n")[0]).toContain("package_measured_watts,package_predicted_watts");
    expect(errors).toEqual([]);
    await page.close();
  });
});
