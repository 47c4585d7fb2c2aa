import { describe, expect, it } from "vitest";
import { createDataTable } from "../../domain/data-table.js";
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

  it("sends container row ids as a dictionary per chunk, and still reads plain row_ids", async () => {
    const repeated = createDataTable(
      [1, 1, 1, 2, 2, 2, 3],
      [["cpu_cycles", [1, 2, 3, 4, 5, 6, 7]]],
      ["pod-a", "pod-b", "pod-c", "pod-a", "pod-b", "pod-c", "pod-a"],
    );
    const chunks = [...tableToChunks(repeated, 4)];
    expect(chunks.map((chunk) => [chunk.rowIds, chunk.rowIdDictionary])).toEqual([
      [[], ["pod-a", "pod-b", "pod-c"]],
      [[], ["pod-b", "pod-c", "pod-a"]],
    ]);
    expect(Array.from(new Uint32Array(new Uint8Array(chunks[0]!.rowIdIndexes).buffer))).toEqual([0, 1, 2, 0]);
    expect((await collectChunks(chunks)).rowIds).toEqual(repeated.rowIds);
    // A chunk written by another client with one string per row.
    const plain = { ...chunks[1]!, rowIds: ["pod-b", "pod-c", "pod-a"], rowIdDictionary: [], rowIdIndexes: Buffer.alloc(0) };
    expect((await collectChunks([chunks[0]!, plain])).rowIds).toEqual(repeated.rowIds);
    // Node tables carry neither form.
    expect([...tableToChunks(createDataTable([1], [["x", [1]]]))][0]!.rowIdIndexes.byteLength).toBe(0);
  });

  it("refuses a row-id dictionary that does not fit its chunk, naming the field", async () => {
    const [first] = [...tableToChunks(table, 5)];
    await expect(collectChunks([{ ...first!, rowIds: ["a", "b", "c", "d", "e"] }])).rejects.toThrow(
      "chunks[0].row_ids: a chunk carries row_ids or row_id_dictionary, not both",
    );
    await expect(collectChunks([{ ...first!, rowIdIndexes: Buffer.alloc(8) }])).rejects.toThrow(
      "chunks[0].row_id_indexes: expected 5 packed uint32 values (20 bytes), got 8 bytes",
    );
    const outOfRange = Buffer.from(new Uint32Array([0, 1, 2, 3, 9]).buffer);
    await expect(collectChunks([{ ...first!, rowIdIndexes: outOfRange }])).rejects.toThrow(
      "chunks[0].row_id_indexes: row 4 names entry 9 of a dictionary of 5",
    );
  });

  it("requires the first chunk to name the columns", async () => {
    const [, second] = [...tableToChunks(table, 2)];
    await expect(collectChunks([second!])).rejects.toThrow("chunks[0].column_names: the first chunk must name the columns");
  });
});
