// `kepler-model isolate` in-process on the recorded coremark response, checked against the reference's
// isolate_min golden and the corrected idle profile.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliCaptured as run } from "../support/run-cli.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { readIsolatorGolden } from "../fixtures/isolator/goldens.js";
import { extractorFixturePath, relativeError } from "../support/extractor-fixtures.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");
const IDLE = extractorFixturePath("idle-2023-12-13.json.gz");

/** `isolate` of the coremark recording's rapl-sysfs CounterOnly table, then `flags`. */
const isolateCoremark = (flags: readonly string[]) =>
  run(["isolate", "--input", COREMARK, "--source", "rapl-sysfs", "--feature-group", "CounterOnly", ...flags]);

let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "isolate-cli-"));
});

afterAll(async () => {
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

describe("kepler-model isolate", () => {
  it("min on the recorded response equals the reference's isolate_min golden", async () => {
    const out = join(folder, "isolated_min.csv");
    const { code, stdout } = await isolateCoremark(["--isolator", "min", "--out", out]);
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toBe(`wrote ${out}: 187 rows from 62 target containers (isolator min)`);
    const ours = readTableCsv(await readFile(out, "utf8"), out);
    const golden = readIsolatorGolden("isolate_min_rapl-sysfs_CounterOnly.csv");
    // The golden's columns: timestamp, ours, id.
    expect(["timestamp", ...ours.columnNames, "id"]).toEqual(golden.header);
    let worst = 0;
    golden.rows.forEach((fields, row) => {
      expect(ours.timestamps[row]).toBe(Number(fields[0]));
      ours.columnNames.forEach((_, column) => {
        const expected = Number(fields[column + 1]);
        // Labels are differences (power minus its minimum): compared relative to at least 1 W.
        worst = Math.max(worst, relativeError(ours.values[column * ours.rowCount + row]!, expected));
      });
    });
    expect(worst).toBeLessThan(1e-9);
  });

  it("profile with the idle recording removes the corrected idle background and never goes negative", async () => {
    const out = join(folder, "isolated_profile.csv");
    const { code, stdout } = await isolateCoremark(["--isolator", "profile", "--idle", IDLE, "--out", out]);
    expect(code).toBe(0);
    // The idle profile with the reference's bugs fixed, on our extractor's per-row-step watts (as
    // services/isolator/server.test.ts): package min 101.977 W x 14.5/18 s, max 170.837 W x 14.5/15 s;
    // the background removed is their mean, one unit.
    const background = (line: string | undefined) => Number(/background (\S+) W$/.exec(line ?? "")?.[1]);
    const lines = stdout.split("\n");
    expect(lines[1]).toMatch(/^ {2}package_power {4}background /);
    expect(background(lines[1])).toBeCloseTo(((101.97703448275821 * 14.5) / 18 + (170.8373103448278 * 14.5) / 15) / 2, 9);
    expect(lines[2]).toBe("  core_power       background 0.0 W");
    expect(lines[3]).toBe("  uncore_power     background 0.0 W");
    expect(lines[5]).toMatch(/^background containers: /);
    const table = readTableCsv(await readFile(out, "utf8"), out);
    for (const label of ["package_power", "core_power", "uncore_power", "dram_power"]) {
      const index = table.columnNames.indexOf(label);
      const column = table.values.subarray(index * table.rowCount, (index + 1) * table.rowCount);
      expect(Math.min(...column), label).toBeGreaterThanOrEqual(0);
    }
  });
});
