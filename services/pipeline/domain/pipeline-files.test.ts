import { describe, expect, it } from "vitest";
import { absTablePath, batchFiles, dynTablePath } from "./pipeline-files.js";

describe("pipeline files", () => {
  it("names the tables as the reference's preprocessed_data/ does", () => {
    expect(absTablePath("default", "rapl-sysfs", "CounterOnly")).toBe(
      "preprocessed_data/preprocess_abs_default_rapl-sysfs_CounterOnly.csv",
    );
    expect(dynTablePath("smooth", "min", "acpi", "BPFOnly")).toBe("preprocessed_data/preprocess_dyn_smooth_min_acpi_BPFOnly.csv");
  });

  it("batches files under the byte budget, in order, a too-large file alone, and no files as one empty batch", () => {
    const file = (path: string, size: number) => ({ path, text: "é".repeat(size / 2) }); // 2 UTF-8 bytes each
    const files = [file("a", 4), file("b", 4), file("c", 4), file("big", 20), file("d", 2)];
    expect(batchFiles(files, 10).map((batch) => batch.map((f) => f.path))).toEqual([["a", "b"], ["c"], ["big"], ["d"]]);
    expect(batchFiles([], 10)).toEqual([[]]);
  });
});
