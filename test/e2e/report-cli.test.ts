// `kepler-model report` on the bundled coremark recording: models trained by the CLI into a temporary
// model folder, then the report's numbers are checked against `kepler-model evaluate --json` (the same
// extraction, predictor and wasm-core errors), and every chart file is checked as SVG (parsed by resvg)
// and PNG (signature, IHDR size equal to the SVG's).
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Resvg } from "@resvg/resvg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractorFixturePath } from "../support/extractor-fixtures.js";
import { runCliCaptured as run, trainCoremarkWithCli } from "../support/run-cli.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");
const TRAINERS = ["LinearRegressionTrainer", "KNeighborsRegressorTrainer"];
const SOURCES = ["rapl-sysfs", "acpi"];

let folder: string;
let modelPath: string;
let out: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "report-cli-"));
  modelPath = join(folder, "models");
  out = join(folder, "report");
  await trainCoremarkWithCli(modelPath, "reported", {
    input: COREMARK,
    sources: SOURCES,
    featureGroups: ["CounterOnly", "CounterIRQCombined"],
    trainers: TRAINERS,
  });
}, 120_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** 3 significant digits, written out for the expected values: 12.3273 -> "12.3", 0.0123456 -> "0.0123". */
function threeDigits(value: number): string {
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return String(Number(value.toFixed(digits)));
}

interface Evaluated {
  energySource: string;
  featureGroup: string;
  modelName: string;
  maeWatts: number;
  components: Array<{ component: string; maeWatts: number; mapePercent: number }>;
}

describe("kepler-model report", () => {
  it("writes report.html with evaluate's numbers, the chosen model marked, and every chart as SVG and PNG", async () => {
    const report = await run(["report", "--pipeline", "reported", "--input", COREMARK, "--out", out, "--model-path", modelPath]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout.split("\n")[0]).toBe(
      `wrote ${join(out, "report.html")}, 10 charts (SVG and PNG) and each model's per-row predictions (CSV): 8 models on 2 source(s)`,
    );
    // Progress on stderr, one line per model when not on a terminal.
    expect(report.stderr.split("\n").filter((line) => line.startsWith("evaluate "))).toHaveLength(8);

    const html = await readFile(join(out, "report.html"), "utf8");
    const evaluated = await run(["evaluate", "--pipeline", "reported", "--input", COREMARK, "--json", "--model-path", modelPath]);
    expect(evaluated.code).toBe(0);
    const models = (JSON.parse(evaluated.stdout) as { models: Evaluated[] }).models;
    expect(models).toHaveLength(8);
    // Each model's per-row predictions CSV: its rows give back evaluate's MAE per component. Components measured
    // at 0 W on every row are left out of the HTML; the others show evaluate's MAE (exact in data-watts, 3
    // significant digits as text).
    const empty = new Map<string, Set<string>>();
    for (const model of models) {
      const csv = await readFile(
        join(out, `predictions-${model.energySource}-${model.featureGroup}-${model.modelName}.csv`),
        "utf8",
      );
      const [header, ...lines] = csv.trimEnd().split("\n");
      const columns = header!.split(",");
      const rows = lines.map((line) => line.split(",").map(Number));
      expect(columns.slice(0, 2)).toEqual(["time_utc", "timestamp"]);
      expect(rows.length, model.modelName).toBeGreaterThan(10);
      for (const c of model.components) {
        const measured = rows.map((row) => row[columns.indexOf(`${c.component}_measured_watts`)]!);
        const predicted = rows.map((row) => row[columns.indexOf(`${c.component}_predicted_watts`)]!);
        const mae = measured.reduce((sum, m, i) => sum + Math.abs(predicted[i]! - m), 0) / rows.length;
        expect(mae, `${model.modelName} ${c.component}`).toBeCloseTo(c.maeWatts, 9);
        if (measured.every((m) => m === 0))
          (empty.get(model.energySource) ?? empty.set(model.energySource, new Set()).get(model.energySource)!).add(c.component);
      }
    }
    expect([...(empty.get("rapl-sysfs") ?? [])].sort()).toEqual(["core", "uncore"]);
    for (const model of models) {
      const rows = [
        ...html.matchAll(
          new RegExp(
            `<tr class="model[^"]*" data-model="${model.modelName}" data-group="${model.featureGroup}">[\\s\\S]*?<td class="num mae" data-watts="([^"]+)">([0-9.]+)</td>`,
            "g",
          ),
        ),
      ].filter(
        (match) =>
          html.lastIndexOf(`id="source-`, match.index) === html.lastIndexOf(`id="source-${model.energySource}"`, match.index),
      );
      const shown = model.components.filter((c) => !empty.get(model.energySource)?.has(c.component));
      expect(
        rows.map((match) => [Number(match[1]), match[2]]),
        `${model.energySource}/${model.featureGroup}/${model.modelName}`,
      ).toEqual(shown.map((c) => [c.maeWatts, threeDigits(c.maeWatts)]));
    }
    expect(html).toContain("Left out of the table and the charts, measured at 0 W on every scored row: core, uncore.");
    // The chosen model per source is evaluate's first (lowest held-out MAE), marked with a star, and the one the
    // registry selects for a request covering every feature group (lowest stored held-out MAE).
    const registry = await startRegistry(
      { host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0, sourcePipelines: [] },
      { logger: silentLogger() },
    );
    const client = createRegistryClient(registry.address);
    try {
      for (const source of SOURCES) {
        const best = models.find((m) => m.energySource === source)!;
        const selected = await client.client.selectModel({
          featureNames: ["cache_miss", "cpu_cycles", "cpu_instructions", "bpf_block_irq", "bpf_net_rx_irq", "bpf_net_tx_irq"],
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
          energySource: source,
          pipelineName: "reported",
          metadataOnly: true,
        });
        expect(`${selected.metadata?.location?.featureGroup}/${selected.metadata?.modelName}`, source).toBe(
          `${best.featureGroup}/${best.modelName}`,
        );
        expect(report.stdout).toContain(
          `best ${source}: ${best.featureGroup}/${best.modelName} (held-out MAE ${best.maeWatts.toFixed(4)} W)`,
        );
      }
    } finally {
      client.close();
      await registry.close();
    }
    for (const source of SOURCES) {
      const best = models.find((m) => m.energySource === source)!;
      expect(html).toContain(`<b>${best.featureGroup}/${best.modelName}</b>, MAE ${threeDigits(best.maeWatts)} W`);
      expect(html).toMatch(
        new RegExp(`<tr class="model chosen" data-model="${best.modelName}" data-group="${best.featureGroup}">`),
      );
    }
    // Self-contained: no script, stylesheet or image fetched at view time.
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);

    const files = (await readdir(out)).sort();
    const charts = SOURCES.flatMap((s) =>
      ["power", "mae", "residual", "distribution", "intervals"].map((kind) => `${kind}-${s}`),
    );
    const predictionFiles = models.map((m) => `predictions-${m.energySource}-${m.featureGroup}-${m.modelName}.csv`);
    expect(files).toEqual([...charts.flatMap((c) => [`${c}.png`, `${c}.svg`]), ...predictionFiles, "report.html"].sort());
    for (const chart of charts) {
      const svg = await readFile(join(out, `${chart}.svg`), "utf8");
      expect(svg.startsWith("<svg"), chart).toBe(true);
      expect(html).toContain(`id="chart-${chart}"`);
      const parsed = new Resvg(svg); // throws on malformed SVG
      const png = await readFile(join(out, `${chart}.png`));
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.toString("ascii", 12, 16)).toBe("IHDR");
      expect([png.readUInt32BE(16), png.readUInt32BE(20)], chart).toEqual([parsed.width, parsed.height]);
      expect(parsed.width).toBeGreaterThan(300);
    }
    // The time-series chart draws the measured line and one line per trainer.
    const power = await readFile(join(out, "power-rapl-sysfs.svg"), "utf8");
    for (const name of ["measured", ...TRAINERS]) expect(power).toContain(name);
    // The interval chart and table: the chosen model's 90 % band from its 19 held-out residuals.
    expect(html).toContain("90 % prediction intervals of");
    expect(html).toMatch(
      /<td>platform<\/td><td class="num">[0-9.]+<\/td><td class="num">19<\/td><td class="num">\d+ of 19<\/td>/,
    );
  }, 120_000);

  it("refuses a missing --input and an unknown pipeline", async () => {
    expect((await run(["report", "--pipeline", "reported"])).stderr).toContain("--input is required");
    const unknown = await run(["report", "--pipeline", "nope", "--input", COREMARK, "--out", out, "--model-path", modelPath]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("nope");
  });
});
