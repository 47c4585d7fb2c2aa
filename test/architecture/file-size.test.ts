// Small modules: no source file over 300 lines (nice-grpc's largest source file is about 300 lines), outside
// the AssemblyScript kernels (one file per kernel family) and generated code. A failure lists every
// offender with its line count, production code and tests apart.
import { describe, expect, it } from "vitest";
import { listSourceFiles, readSourceFile } from "../support/source-imports.js";

const MAX_LINES = 300;
/** Where the rule does not apply: the generated protobuf code and the wasm kernels (wasm-core/assembly). */
const EXEMPT_FOLDERS = ["services/generated", "wasm-core/assembly", "wasm-core/build"];
const PRODUCTION_ROOTS = ["services", "cli", "wasm-core/src"];
const TEST_ROOTS = ["test", "bench", "wasm-core/test"];

function offenders(roots: readonly string[], keep: (path: string) => boolean): string[] {
  return listSourceFiles(roots, EXEMPT_FOLDERS)
    .filter(keep)
    .map(readSourceFile)
    .filter((file) => file.lineCount > MAX_LINES)
    .sort((a, b) => b.lineCount - a.lineCount)
    .map((file) => `${file.lineCount} ${file.path}`);
}

const isTest = (path: string) => path.endsWith(".test.ts");

/**
 * Known debt (issue 35, left open): end-to-end files not split yet, each at most its current length. A file
 * here that grows fails, and so does one that shrinks to 300 lines while still listed (take it off the list).
 */
const NOT_SPLIT_YET: Readonly<Record<string, number>> = {
};

describe(`no source file over ${MAX_LINES} lines`, () => {
  it("in production code (services/, cli/, wasm-core/src)", () => {
    const found = offenders(PRODUCTION_ROOTS, (path) => !isTest(path));
    expect(found, `${found.length} production files over ${MAX_LINES} lines:\n${found.join("\n")}\n`).toEqual([]);
  });

  it("in tests, test helpers and benchmarks", () => {
    const all = [...offenders(PRODUCTION_ROOTS, isTest), ...offenders(TEST_ROOTS, () => true)];
    const found = all.filter((line) => {
      const [count, path] = line.split(" ") as [string, string];
      const ceiling = NOT_SPLIT_YET[path];
      return ceiling === undefined || Number(count) > ceiling;
    });
    const listedButShort = Object.keys(NOT_SPLIT_YET).filter((path) => !all.some((line) => line.endsWith(` ${path}`)));
    expect(listedButShort, "listed as not split yet but now within the limit: take them off NOT_SPLIT_YET").toEqual([]);
    expect(found, `${found.length} test and bench files over ${MAX_LINES} lines:\n${found.join("\n")}\n`).toEqual([]);
  });
});
