// Issue 31: the prediction intervals' coverage on rows neither the fit nor the calibration saw (the bench's
// measurement, bench/intervals/coverage.ts, on a fixed set of seeds), within 3 points of the nominal level on
// the coremark recording; the full table per source, trainer and level is `npm run bench -- intervals`.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { measureCoverage, measureCoverageOverAllSplits } from "../../bench/intervals/coverage.js";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { extractorFixturePath } from "../support/extractor-fixtures.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");
const IDLE = extractorFixturePath("idle-2023-12-13.json.gz");
const SEEDS = Array.from({ length: 12 }, (_, i) => i + 1);

describe("split-conformal prediction intervals", () => {
  it.each(["rapl-sysfs", "acpi"])(
    "%s on coremark: 90-percent intervals cover 87 to 93 percent of rows never seen",
    async (energySource) => {
      const response = parsePrometheusResponse(gunzipSync(readFileSync(COREMARK)), COREMARK);
      const { table } = extract(response, {
        energySource,
        featureGroup: "CounterOnly",
        level: "node",
        extractor: "default",
      } as Parameters<typeof extract>[1]);
      const results = await measureCoverage({
        table,
        energySource,
        featureGroup: "CounterOnly",
        trainerNames: ["LinearRegressionTrainer", "GradientBoostingRegressorTrainer"],
        seeds: SEEDS,
        levels: [0.9],
      });
      // 187 rows: 38 evaluation rows per seed, 15 calibration residuals (the trainer's 10 % of 149).
      expect(results.every((r) => r.calibrationRows === 15)).toBe(true);
      const covered = results.reduce((sum, r) => sum + r.covered, 0);
      const rows = results.reduce((sum, r) => sum + r.rows, 0);
      expect(rows).toBe(SEEDS.length * 38 * 2 * (energySource === "acpi" ? 1 : 2)); // trainers x measured components
      expect(Math.abs(covered / rows - 0.9)).toBeLessThanOrEqual(0.03);
    },
    120_000,
  );

  // 5 rows: each model calibrates on 1 held-out residual, so no finite interval can promise 90 %; Estimate answers
  // interval_level n / (n + 1) = 0.5 there. Over all 20 (evaluation row, calibration row) splits the coverage is
  // exactly the split-conformal guarantee for one residual: the evaluation row's error is the smaller of the two
  // as often as not.
  it.each(["rapl-sysfs", "acpi"])(
    "%s on the idle recording: over every split, intervals cover 50 percent, the level Estimate answers",
    async (energySource) => {
      const response = parsePrometheusResponse(gunzipSync(readFileSync(IDLE)), IDLE);
      const { table } = extract(response, {
        energySource,
        featureGroup: "BPFOnly",
        level: "node",
        extractor: "default",
      } as Parameters<typeof extract>[1]);
      expect(table.rowCount).toBe(5);
      const results = await measureCoverageOverAllSplits({
        table,
        energySource,
        featureGroup: "BPFOnly",
        trainerNames: ["LinearRegressionTrainer", "GradientBoostingRegressorTrainer"],
        levels: [0.9],
      });
      expect(results.every((r) => r.calibrationRows === 1)).toBe(true);
      const covered = results.reduce((sum, r) => sum + r.covered, 0);
      const rows = results.reduce((sum, r) => sum + r.rows, 0);
      expect(rows).toBe(20 * 2 * (energySource === "acpi" ? 1 : 2)); // splits x trainers x measured components
      expect(Math.abs(covered / rows - 1 / 2)).toBeLessThanOrEqual(0.03);
    },
    120_000,
  );
});
