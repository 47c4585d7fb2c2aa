// `npm run bench -- intervals`: coverage and widths of the split-conformal prediction intervals (issue 31) on
// rows neither the fit nor the calibration saw (coverage.ts), per data source: the coremark recording, the
// idle recording (every split, as its 5 rows give one calibration residual: the level to compare with is then
// the achievable 50 %, what Estimate answers as interval_level), and the VM test bed (test/support/vm-testbed.ts,
// served by a real Prometheus like test/vm). Pass --seeds=N (default 40) and --no-vm to skip the test bed.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { printTable } from "../support/measure.js";
import { type CoverageResult, measureCoverage, measureCoverageOverAllSplits } from "./coverage.js";
import { vmTestbedTables } from "./vm-testbed-tables.js";

const FIXTURES = new URL("../../test/fixtures/extractor/", import.meta.url);
const LEVELS = [0.8, 0.9, 0.95];
const TRAINERS = ["LinearRegressionTrainer", "GradientBoostingRegressorTrainer", "KNeighborsRegressorTrainer"];

function flag(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3));
}

async function recording(name: string) {
  const url = new URL(name, FIXTURES);
  return parsePrometheusResponse(gunzipSync(await readFile(url)), url.pathname);
}

const percent = (value: number) => `${(100 * value).toFixed(1)}`;

interface Row {
  data: string;
  energySource: string;
  results: CoverageResult[];
}

function print(rows: readonly Row[]): void {
  printTable(
    "Interval coverage on evaluation rows (per trainer and component)",
    [
      "data",
      "source",
      "trainer",
      "component",
      "level %",
      "coverage %",
      "rows",
      "calib rows",
      "half width W",
      "half width % of mean",
    ],
    rows.flatMap((row) =>
      row.results.map((r) => [
        row.data,
        row.energySource,
        r.trainer.replace("Trainer", ""),
        r.component,
        percent(r.level),
        percent(r.covered / r.rows),
        String(r.rows),
        String(r.calibrationRows),
        r.meanHalfWidthWatts.toFixed(2),
        percent(r.meanRelativeHalfWidth),
      ]),
    ),
  );
  printTable(
    "Per data source and energy source (all trainers and components pooled): nominal vs measured coverage",
    ["data", "source", "level %", "achievable %", "coverage %", "rows", "off achievable by (points)", "within ±3"],
    rows.flatMap((row) =>
      LEVELS.map((level) => {
        const of = row.results.filter((r) => r.level === level);
        const covered = of.reduce((sum, r) => sum + r.covered, 0);
        const total = of.reduce((sum, r) => sum + r.rows, 0);
        // What the estimator answers as interval_level: n / (n + 1) when n calibration residuals are too few.
        const achievable = Math.min(level, ...of.map((r) => r.calibrationRows / (r.calibrationRows + 1)));
        const off = 100 * (covered / total - achievable);
        return [
          row.data,
          row.energySource,
          percent(level),
          percent(achievable),
          percent(covered / total),
          String(total),
          off.toFixed(1),
          Math.abs(off) <= 3 ? "yes" : "NO",
        ];
      }),
    ),
  );
}

export default async function run(): Promise<void> {
  const seeds = Array.from({ length: flag("seeds", 40) }, (_, i) => i + 1);
  const rows: Row[] = [];
  const sources: Array<[string, string, string]> = [
    ["coremark", "coremark-2023-09-28.json.gz", "CounterOnly"],
    ["idle", "idle-2023-12-13.json.gz", "BPFOnly"],
  ];
  for (const [data, file, featureGroup] of sources) {
    const response = await recording(file);
    for (const energySource of ["rapl-sysfs", "acpi"]) {
      const { table } = extract(response, { energySource, featureGroup, level: "node", extractor: "default" } as Parameters<
        typeof extract
      >[1]);
      const skipped = new Set<string>();
      // The idle recording's 5 rows are too few to sample splits from: every split is scored instead (exact).
      const results =
        data === "idle"
          ? await measureCoverageOverAllSplits(
              { table, energySource, featureGroup, trainerNames: TRAINERS, levels: LEVELS },
              skipped,
            )
          : await measureCoverage({ table, energySource, featureGroup, trainerNames: TRAINERS, seeds, levels: LEVELS }, skipped);
      rows.push({ data, energySource, results });
      for (const reason of skipped) console.log(`${data} ${energySource}: skipped ${reason}`);
    }
  }
  if (!process.argv.includes("--no-vm")) {
    for (const { data, table, featureGroup } of await vmTestbedTables()) {
      const results = await measureCoverage({
        table,
        energySource: "rapl-sysfs",
        featureGroup,
        trainerNames: ["LinearRegressionTrainer", "SGDRegressorTrainer"],
        seeds: seeds.slice(0, 10),
        levels: LEVELS,
      });
      rows.push({ data, energySource: "rapl-sysfs", results });
    }
  }
  print(rows);
}
