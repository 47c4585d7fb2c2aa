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

describe(`no source file over ${MAX_LINES} lines`, () => {
  it("in production code (services/, cli/, wasm-core/src)", () => {
    const found = offenders(PRODUCTION_ROOTS, (path) => !isTest(path));
    expect(found, `${found.length} production files over ${MAX_LINES} lines:\n${found.join("\n")}\n`).toEqual([]);
  });

  it("in tests, test helpers and benchmarks", () => {
    const found = [...offenders(PRODUCTION_ROOTS, isTest), ...offenders(TEST_ROOTS, () => true)];
    expect(found, `${found.length} test and bench files over ${MAX_LINES} lines:\n${found.join("\n")}\n`).toEqual([]);
  });
});
