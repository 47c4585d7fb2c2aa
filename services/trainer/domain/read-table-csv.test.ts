import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../domain/errors.js";
import { readTableCsv } from "./read-table-csv.js";

describe("readTableCsv", () => {
  it("reads the isolator's CSV: timestamp first, an id column kept as row ids", () => {
    const table = readTableCsv(
      "timestamp,cpu_cycles,platform_power,node_type,id\n10,1.5,100,0.0,all containers\n13,2.5,101,0.0,all containers\n",
    );
    expect(table.columnNames).toEqual(["cpu_cycles", "platform_power", "node_type"]);
    expect(Array.from(table.timestamps)).toEqual([10, 13]);
    expect(Array.from(table.values)).toEqual([1.5, 2.5, 100, 101, 0, 0]);
    expect(table.rowIds).toEqual(["all containers", "all containers"]);
  });

  it("drops the unnamed pandas index column of save_csv output", () => {
    const table = readTableCsv(",timestamp,cpu_cycles\n0,10,7\n1,13,8\n");
    expect(table.columnNames).toEqual(["cpu_cycles"]);
    expect(Array.from(table.values)).toEqual([7, 8]);
  });

  it("names the line and column of a bad cell", () => {
    expect(() => readTableCsv("timestamp,cpu_cycles\n10,7\n13,seven\n", "t.csv")).toThrow(
      new InvalidInputError("t.csv: line 3, column cpu_cycles", '"seven" is not a number'),
    );
    expect(() => readTableCsv("cpu_cycles\n7\n", "t.csv")).toThrow(
      new InvalidInputError("t.csv: header", "missing the timestamp column (have: cpu_cycles)"),
    );
  });
});
