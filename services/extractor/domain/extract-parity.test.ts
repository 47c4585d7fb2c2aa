// Parity with the Python reference on recorded Kepler data: every golden extractor output in
// test/fixtures/extractor, within 1e-9 relative (absolute below 1), the reference README's tolerance.
import { afterAll, describe, expect, it } from "vitest";
import { readFixtureJson, readGoldenCsv, recordedResponseText, relativeError } from "../../../test/support/extractor-fixtures.js";
import type { DataTable } from "../../domain/data-table.js";
import { type PrometheusResponse, parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { extract } from "./extract.js";
import { tableToCsv } from "../../domain/table-csv.js";

const TOLERANCE = 1e-9;
const maxErrors = new Map<string, number>();
const coremark: PrometheusResponse = parsePrometheusResponse(recordedResponseText("coremark"));
const idle: PrometheusResponse = parsePrometheusResponse(recordedResponseText("idle"));

interface Counts {
  coremark: { valid_groups: string[] } & Record<
    string,
    { abs_rows: number; container_rows: number; container_ids: number; abs_columns: string[] }
  >;
  idle: { valid_groups: string[] } & Record<string, { abs_rows: number; container_rows: number; abs_columns: string[] }>;
}
const counts = readFixtureJson<Counts>("counts.json");

/** Max error of a table against a golden CSV; per-row scale factors (for irregular steps) optional. */
function compareWithGolden(table: DataTable, file: string, scaleOf?: (column: string, row: number) => number): number {
  const golden = readGoldenCsv(file);
  expect(["timestamp", ...table.columnNames]).toEqual(golden.header);
  expect(table.rowCount).toBe(golden.rows.length);
  let worst = 0;
  golden.rows.forEach((fields, row) => {
    expect(table.timestamps[row]).toBe(Number(fields[0]));
    table.columnNames.forEach((column, index) => {
      const expected = Number(fields[index + 1]) * (scaleOf?.(column, row) ?? 1);
      const actual = table.values[index * table.rowCount + row]!;
      worst = Math.max(worst, relativeError(actual, expected));
    });
  });
  maxErrors.set(file, worst);
  return worst;
}

describe("extract: coremark (3 s regular steps, RAPL labelled `rapl`) against the reference", () => {
  it("lists the reference's valid feature groups, and the extra ones (IRQOnly, CgroupOnly, KubeletOnly) apart", () => {
    const result = extract(coremark, { energySource: "acpi", featureGroup: "CounterOnly", level: "node", extractor: "default" });
    expect(result.validFeatureGroups).toEqual(counts.coremark.valid_groups);
    expect(result.validHistoricalFeatureGroups).toEqual(["IRQOnly", "CgroupOnly", "KubeletOnly"]);
  });

  for (const source of ["rapl-sysfs", "acpi"] as const) {
    for (const group of ["CounterOnly", "CounterIRQCombined"] as const) {
      it(`node table ${source}/${group} matches extract_abs_${source}_${group}.csv (power columns bit for bit)`, () => {
        const result = extract(coremark, { energySource: source, featureGroup: group, level: "node", extractor: "default" });
        expect(compareWithGolden(result.table, `extract_abs_${source}_${group}.csv`)).toBeLessThan(TOLERANCE);
        // Energy sums and the per-timestamp power mean are computed as pandas does (Kahan, same order).
        const golden = readGoldenCsv(`extract_abs_${source}_${group}.csv`);
        for (const column of result.powerColumns) {
          const index = result.table.columnNames.indexOf(column);
          const ours = Array.from(
            result.table.values.subarray(index * result.table.rowCount, (index + 1) * result.table.rowCount),
          );
          expect(ours).toEqual(golden.rows.map((row) => Number(row[index + 1])));
        }
        expect(result.table.rowCount).toBe(counts.coremark[`${source}/${group}`]!.abs_rows);
        expect(result.table.columnNames).toEqual(counts.coremark[`${source}/${group}`]!.abs_columns);
        expect(result.powerColumns).toEqual(
          source === "acpi" ? ["platform_power"] : ["package_power", "core_power", "uncore_power", "dram_power"],
        );
      });

      it(`correlations ${source}/${group} match corr_${source}_${group}.csv`, () => {
        const result = extract(coremark, { energySource: source, featureGroup: group, level: "node", extractor: "default" });
        const golden = readGoldenCsv(`corr_${source}_${group}.csv`);
        expect(golden.header).toEqual(["", source]);
        expect(result.correlations.map((c) => c.feature)).toEqual(golden.rows.map((row) => row[0]));
        let worst = 0;
        golden.rows.forEach((row, index) => {
          worst = Math.max(worst, relativeError(result.correlations[index]!.correlation, Number(row[1])));
        });
        maxErrors.set(`corr_${source}_${group}.csv`, worst);
        expect(worst).toBeLessThan(TOLERANCE);
      });

      it(`container table ${source}/${group} has the isolator's input rows (counts.json)`, () => {
        const result = extract(coremark, { energySource: source, featureGroup: group, level: "container", extractor: "default" });
        const expected = counts.coremark[`${source}/${group}`]!;
        expect(result.table.rowCount).toBe(expected.container_rows);
        expect(result.containerCount).toBe(expected.container_ids);
        expect(result.table.rowIds).toHaveLength(expected.container_rows);
      });
    }
  }

  it("writes the reference's CSV text: header, int node_type, Python float repr; digits equal except last-ulp summation order", () => {
    const result = extract(coremark, {
      energySource: "rapl-sysfs",
      featureGroup: "CounterOnly",
      level: "node",
      extractor: "default",
    });
    const ours = tableToCsv(result.table).trimEnd().split("\n");
    const golden = readGoldenCsv("extract_abs_rapl-sysfs_CounterOnly.csv").text.trimEnd().split("\n");
    expect(ours[0]).toBe(golden[0]);
    expect(ours).toHaveLength(golden.length);
    // Fields that are exact in both (node_type, ratio, the 0.0 core/uncore columns) are textually identical.
    const pick = (line: string) => line.split(",").filter((_, index) => [0, 5, 6, 8, 9].includes(index));
    expect(ours.map(pick)).toEqual(golden.map(pick));
    expect(ours[1]!.split(",")[9]).toBe("1.0");
  });
});

describe("extract: idle.json (irregular steps 15, 15, 21, 15, 18, 3 s) against the reference", () => {
  // The reference divides power by the mean step (87 - 0) / 6 = 14.5 s; we divide by each row's own
  // step (docs/deviations.md, "Extractor"). So our power = golden power * 14.5 / step; features agree.
  const steps = [15, 15, 21, 15, 18];
  const powerScale = (column: string, row: number) => (column.endsWith("_power") ? 14.5 / steps[row]! : 1);

  for (const source of ["rapl-sysfs", "acpi"] as const) {
    it(`node table ${source}/BPFOnly equals idle_extract_abs_${source}_BPFOnly.csv with power rescaled to the row's own step`, () => {
      const result = extract(idle, { energySource: source, featureGroup: "BPFOnly", level: "node", extractor: "default" });
      expect(compareWithGolden(result.table, `idle_extract_abs_${source}_BPFOnly.csv`, powerScale)).toBeLessThan(TOLERANCE);
      expect(result.table.rowCount).toBe(counts.idle[`${source}/BPFOnly`]!.abs_rows);
      expect(result.validFeatureGroups).toEqual(counts.idle.valid_groups);
    });

    it(`container table ${source}/BPFOnly has ${counts.idle[`${source}/BPFOnly`]!.container_rows} rows`, () => {
      const result = extract(idle, { energySource: source, featureGroup: "BPFOnly", level: "container", extractor: "default" });
      expect(result.table.rowCount).toBe(counts.idle[`${source}/BPFOnly`]!.container_rows);
    });
  }

  it("first row: package = (46039.971 - 44050.922 J) / 15 s instead of the reference's / 14.5 s", () => {
    const result = extract(idle, { energySource: "rapl-sysfs", featureGroup: "BPFOnly", level: "node", extractor: "default" });
    const package0 = result.table.values[2 * result.table.rowCount]!;
    expect(result.table.timestamps[0]).toBe(1702462614);
    expect(relativeError(package0, (46039.971 - 44050.922) / 15)).toBeLessThan(TOLERANCE);
    const golden = Number(readGoldenCsv("idle_extract_abs_rapl-sysfs_BPFOnly.csv").rows[0]![3]);
    expect(relativeError(golden, (46039.971 - 44050.922) / 14.5)).toBeLessThan(TOLERANCE);
  });
});

afterAll(() => {
  const lines = [...maxErrors].map(([file, error]) => `${file}: max relative error ${error.toExponential(2)}`);
  console.info(`extractor parity\n${lines.join("\n")}`);
});
