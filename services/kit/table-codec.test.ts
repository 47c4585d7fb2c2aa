import { describe, expect, it } from "vitest";
import { createDataTable } from "../domain/data-table.js";
import { bytesToFloat64, collectChunks, decodeTable, encodeTable, tableToChunks } from "./table-codec.js";

const table = createDataTable(
  [10, 13, 16, 19, 22],
  [
    ["cpu_cycles", [1, 2, 3, 4, 5]],
    ["package_power", [100, 110, 120, 130, 140]],
  ],
  ["a", "b", "c", "d", "e"],
);

describe("table codec", () => {
  it("decodes aligned bytes as a view over the same memory (no copy)", () => {
    const floats = new Float64Array([1.5, -2, 3e300]);
    const bytes = new Uint8Array(floats.buffer);
    const view = bytesToFloat64(bytes, "values");
    expect(view.buffer).toBe(floats.buffer);
    expect(Array.from(view)).toEqual([1.5, -2, 3e300]);
  });

  it("copies unaligned bytes once and keeps the values exact", () => {
    const backing = new Uint8Array(8 * 2 + 5);
    backing.set(new Uint8Array(new Float64Array([0.1, 7]).buffer), 5);
    const view = bytesToFloat64(backing.subarray(5), "values");
    expect(view.byteOffset % 8).toBe(0);
    expect(Array.from(view)).toEqual([0.1, 7]);
  });

  it("rejects bytes that are not whole float64 values, naming the field", () => {
    expect(() => bytesToFloat64(new Uint8Array(12), "table.values")).toThrow(
      "table.values: packed float64 bytes must be a multiple of 8 long, got 12",
    );
  });

  it("round-trips a table through one message", () => {
    const decoded = decodeTable(encodeTable(table));
    expect(decoded.columnNames).toEqual(["cpu_cycles", "package_power"]);
    expect(Array.from(decoded.values)).toEqual([1, 2, 3, 4, 5, 100, 110, 120, 130, 140]);
    expect(decoded.rowIds).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("rejects a table whose values do not match its shape", () => {
    const wire = encodeTable(table);
    expect(() => decodeTable({ ...wire, rowCount: 4, timestamps: wire.timestamps.subarray(0, 32), rowIds: [] })).toThrow(
      "table.values: expected 8 float64 values (4 rows x 2 columns), got 10",
    );
  });

  it("streams a table in row chunks and reassembles it exactly", async () => {
    const chunks = [...tableToChunks(table, 2)];
    expect(chunks.map((chunk) => chunk.rowCount)).toEqual([2, 2, 1]);
    expect(chunks[1]!.columnNames).toEqual([]);
    const back = await collectChunks(chunks);
    expect(Array.from(back.values)).toEqual(Array.from(table.values));
    expect(Array.from(back.timestamps)).toEqual([10, 13, 16, 19, 22]);
    expect(back.rowIds).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("requires the first chunk to name the columns", async () => {
    const [, second] = [...tableToChunks(table, 2)];
    await expect(collectChunks([second!])).rejects.toThrow("chunks[0].column_names: the first chunk must name the columns");
  });
});
