import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { DataTable } from "./data-table.js";
import { formatPythonFloat, tableCsvChunks, tableToCsv } from "./table-csv.js";

describe("formatPythonFloat matches Python's repr()", () => {
  // Each pair is [value, repr(value)] as CPython 3 prints it.
  const cases: Array<[number, string]> = [
    [1, "1.0"],
    [0, "0.0"],
    [-0, "-0.0"],
    [796627956, "796627956.0"],
    [0.1, "0.1"],
    [1 / 3, "0.3333333333333333"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1.5e-7, "1.5e-07"],
    [-2.5e-10, "-2.5e-10"],
    [1234567890123456, "1234567890123456.0"],
    [1e16, "1e+16"],
    [2.5e20, "2.5e+20"],
    [1e22, "1e+22"],
    [123.456, "123.456"],
    [34.06799999872843, "34.06799999872843"],
    [Number.NaN, "nan"],
    [Number.POSITIVE_INFINITY, "inf"],
    [Number.NEGATIVE_INFINITY, "-inf"],
  ];
  for (const [value, expected] of cases) {
    it(`${expected}`, () => {
      expect(formatPythonFloat(value)).toBe(expected);
    });
  }
});

describe("tableToCsv", () => {
  it("writes the index first, node_type as an integer, NaN as an empty field and quotes ids when needed", () => {
    const csv = tableToCsv({
      columnNames: ["cpu_cycles", "node_type"],
      rowCount: 2,
      values: Float64Array.from([1, Number.NaN, 3, 3]),
      timestamps: Float64Array.from([1695361428, 1695361431.5]),
      rowIds: ["a/b/c/d", 'x,"y"'],
    });
    expect(csv).toBe('timestamp,id,cpu_cycles,node_type\n1695361428,a/b/c/d,1.0,3\n1695361431.5,"x,""y""",,3\n');
  });
});

describe("tableCsvChunks", () => {
  const table: DataTable = {
    columnNames: ["package_power", "node_type"],
    rowCount: 13,
    // Each value is [value, repr(value)] as CPython 3 prints it, around the bounds of fixed notation.
    values: Float64Array.from([
      ...[1e-4, 9.999e-5, 0.00012345, 9999999999999998, 1e16, 1e21, 123456789012345.6, 5e-324, 1.7976931348623157e308, 100],
      ...[-3, 0.30000000000000004, 2 ** 53],
      ...Array.from({ length: 13 }, () => 1),
    ]),
    timestamps: Float64Array.from({ length: 13 }, (_, i) => 1_700_000_000 + 3 * i),
  };
  const expectedFloats =
    "0.0001 9.999e-05 0.00012345 9999999999999998.0 1e+16 1e+21 123456789012345.6 5e-324 1.7976931348623157e+308 100.0 -3.0 0.30000000000000004 9007199254740992.0".split(
      " ",
    );

  it("writes Python's repr of floats on both sides of fixed notation's bounds", () => {
    const lines = tableToCsv(table).trimEnd().split("\n");
    expect(lines.slice(1).map((line) => line.split(",")[1])).toEqual(expectedFloats);
  });

  it("writes repeated values, 0 after -0 and NaN after NaN as each one alone", () => {
    const csv = tableToCsv({
      columnNames: ["package_power", "node_type"],
      rowCount: 8,
      values: Float64Array.from([0, -0, -0, 0, Number.NaN, Number.NaN, 2.5, 2.5, 1, 1, -0, 0, Number.NaN, 3, 3, 3]),
      timestamps: Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8]),
    });
    expect(csv).toBe("timestamp,package_power,node_type\n1,0.0,1\n2,-0.0,1\n3,-0.0,0\n4,0.0,0\n5,,\n6,,3\n7,2.5,3\n8,2.5,3\n");
  });

  it("cuts the text into whole lines of about the asked size that join to the whole table", () => {
    const chunks = [...tableCsvChunks(table, 60)];
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.endsWith("\n")).toBe(true);
      // A piece is cut at the first line end past the asked size: at most one line longer.
      expect(chunk.length).toBeLessThan(60 + 40);
    }
    expect(chunks.join("")).toBe(tableToCsv(table));
    expect(tableToCsv(table).split("\n")).toHaveLength(15);
  });
});

// Streaming must not change a byte: these digests are of the text the whole-string writer (commit 018a2fe,
// before the CSV was streamed) wrote for the same table; cli/commands/extract.test.ts checks a recording's.
describe("CSV text stays byte-identical to the whole-string writer's", () => {
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

  it("on 2,000 rows of values from 1e-13 to 1e22, NaN, -0, infinities, integers, fractional timestamps and quoted ids", () => {
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const rows = 2000;
    const columns = ["cpu_cycles", "bpf_cpu_time_ms", "package_power", "node_type"];
    const values = new Float64Array(rows * columns.length);
    for (let i = 0; i < values.length; i++) {
      const pick = next();
      const magnitude = 10 ** Math.floor(next() * 36 - 13);
      values[i] =
        pick < 0.05
          ? Number.NaN
          : pick < 0.08
            ? -0
            : pick < 0.1
              ? Math.floor(next() * 1e6)
              : pick < 0.11
                ? next() < 0.5
                  ? Infinity
                  : -Infinity
                : (next() < 0.3 ? -1 : 1) * next() * magnitude;
    }
    const timestamps = Float64Array.from({ length: rows }, (_, i) => 1_700_000_000 + i * (i % 3 === 0 ? 3 : 1.5));
    const rowIds = Array.from({ length: rows }, (_, i) => (i % 7 === 0 ? `pod-${i},"x"` : `c${i % 40}/ns/pod/app`));
    const csv = tableToCsv({ columnNames: columns, rowCount: rows, values, timestamps, rowIds });
    expect(csv.length).toBe(181_312);
    expect(sha256(csv)).toBe("87a697e396950464593e03acbf052619016375d5c8ed61712daba6d9d2067daf");
  });
});
