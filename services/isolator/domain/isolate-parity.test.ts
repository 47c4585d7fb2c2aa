// Parity with the reference MinIdleIsolator on the recorded coremark data, starting from the extractor's
// real container-level table: every value of isolate_min_<source>_<group>.csv within 1e-9 relative
// (absolute below 1), the tolerance of the reference README.
import { afterAll, describe, expect, it } from "vitest";
import { readIsolatorGolden } from "../../../test/fixtures/isolator/goldens.js";
import { containerExtract } from "../../../test/support/container-extract.js";
import { readGoldenCsv, recordedResponseText, relativeError } from "../../../test/support/extractor-fixtures.js";
import { getColumn } from "../../domain/data-table.js";
import { parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { isolate } from "./isolate.js";

const TOLERANCE = 1e-9;
const coremark = parsePrometheusResponse(recordedResponseText("coremark"));
const worstErrors = new Map<string, number>();
afterAll(() => {
  console.info(`isolate_min parity, worst error per table: ${JSON.stringify(Object.fromEntries(worstErrors))}`);
});

for (const source of ["rapl-sysfs", "acpi"] as const) {
  for (const group of ["CounterOnly", "CounterIRQCombined"] as const) {
    describe(`${source}/${group}`, () => {
      const containers = containerExtract(coremark, source, group);

      it(`min matches isolate_min_${source}_${group}.csv`, async () => {
        expect(containers.table.rowCount).toBe(4342);
        const { table, summary } = await isolate(containers.table, { isolator: "min", energySource: source });
        const golden = readIsolatorGolden(`isolate_min_${source}_${group}.csv`);
        // The golden's columns are timestamp, our columns in order, then `id` (= all containers).
        expect(["timestamp", ...table.columnNames, "id"]).toEqual(golden.header);
        expect(table.rowCount).toBe(golden.rows.length);
        expect(table.rowIds).toBeUndefined();
        // Features: 1e-9 relative. Labels are node power minus its minimum, a subtraction that cancels
        // digits: their error is measured relative to the node power they came from (label + minimum).
        const removed = new Map(summary.backgrounds.map((entry) => [entry.labelColumn, entry.watts]));
        let worst = 0;
        golden.rows.forEach((fields, row) => {
          expect(table.timestamps[row]).toBe(Number(fields[0]));
          expect(fields.at(-1)).toBe("all containers");
          table.columnNames.forEach((name, column) => {
            const actual = table.values[column * table.rowCount + row]!;
            const expected = Number(fields[column + 1]);
            const minimum = removed.get(name);
            const error =
              minimum === undefined
                ? relativeError(actual, expected)
                : Math.abs(actual - expected) / Math.max(1, expected + minimum);
            worst = Math.max(worst, error);
          });
        });
        expect(worst).toBeLessThan(TOLERANCE);
        worstErrors.set(`${source}/${group}`, worst);
        expect(summary.isolator).toBe("min");
        expect(summary.targetContainerCount).toBe(62);
        expect(summary.rowCount).toBe(187);
        for (const label of summary.backgrounds.map((entry) => entry.labelColumn)) {
          expect(Math.min(...getColumn(table, label))).toBe(0);
        }
      });

      it("none keeps the node power as labels (the AbsPower table's power columns)", async () => {
        const { table, summary } = await isolate(containers.table, { isolator: "none", energySource: source });
        const abs = readGoldenCsv(`extract_abs_${source}_${group}.csv`);
        let worst = 0;
        for (const label of summary.backgrounds.map((entry) => entry.labelColumn)) {
          const at = abs.header.indexOf(label);
          const ours = getColumn(table, label);
          abs.rows.forEach((fields, row) => {
            worst = Math.max(worst, relativeError(ours[row]!, Number(fields[at])));
          });
        }
        expect(worst).toBeLessThan(TOLERANCE);
        expect(summary.backgrounds.every((entry) => entry.watts === 0)).toBe(true);
      });
    });
  }
}

describe("the minimum removed", () => {
  it("is the AbsPower table's minimum: package 32.2167 W, dram 38.164 W, platform 171 W", async () => {
    const rapl = containerExtract(coremark, "rapl-sysfs");
    const acpi = containerExtract(coremark, "acpi");
    const raplSummary = (await isolate(rapl.table, { isolator: "min", energySource: "rapl-sysfs" })).summary;
    const acpiSummary = (await isolate(acpi.table, { isolator: "min", energySource: "acpi" })).summary;
    const watts = Object.fromEntries(
      [...raplSummary.backgrounds, ...acpiSummary.backgrounds].map((entry) => [entry.labelColumn, entry.watts]),
    );
    // The reference's minima (extract_abs goldens), within 1e-9 relative.
    expect(relativeError(watts.package_power!, 32.21666666741172)).toBeLessThan(TOLERANCE);
    expect(watts.core_power).toBe(0);
    expect(watts.uncore_power).toBe(0);
    expect(relativeError(watts.dram_power!, 38.1639999995629)).toBeLessThan(TOLERANCE);
    expect(watts.platform_power).toBe(171);
  });
});
