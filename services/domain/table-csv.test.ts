import { describe, expect, it } from "vitest";
import { formatPythonFloat, tableToCsv } from "./table-csv.js";

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
