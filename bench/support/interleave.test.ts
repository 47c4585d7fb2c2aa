import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { baselineDir, formatRatioSpread, median, perRoundRatios, roundOrder } from "./interleave.js";

describe("roundOrder", () => {
  it("rotates by one each round, so every contender is first once per cycle", () => {
    const order = [0, 1, 2, 3].map((round) => roundOrder(["floor", "head", "base"], round));
    expect(order).toEqual([
      ["floor", "head", "base"],
      ["head", "base", "floor"],
      ["base", "floor", "head"],
      ["floor", "head", "base"],
    ]);
  });

  it("takes the warm-up rounds' negative numbers too", () => {
    expect(roundOrder(["a", "b", "c"], -1)).toEqual(["c", "a", "b"]);
    expect(roundOrder([], 5)).toEqual([]);
  });
});

describe("median and per-round ratios", () => {
  it("takes the middle value, the upper middle one for an even count", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(3);
    expect(() => median([])).toThrow("median of no values");
  });

  it("divides round by round, not median by median", () => {
    // Medians 100 and 100 (ratio 1), but round by round the first contender is 0.5x, 2x and 1.25x.
    const spread = perRoundRatios([50, 200, 100], [100, 100, 80]);
    expect(spread).toEqual({ median: 1.25, min: 0.5, max: 2 });
    expect(formatRatioSpread(spread)).toBe("1.250 (0.500-2.000)");
    expect(formatRatioSpread({ median: 0.98765, min: 0.9, max: 1.04 }, 2)).toBe("0.99 (0.90-1.04)");
  });

  it("refuses rounds that do not pair up", () => {
    expect(() => perRoundRatios([1, 2], [1])).toThrow("equal, non-empty rounds (got 2 and 1)");
  });
});

describe("baselineDir", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is undefined without the flag and resolves a built checkout's folder against cwd", () => {
    const dir = mkdtempSync(join(tmpdir(), "baseline-"));
    dirs.push(dir);
    mkdirSync(join(dir, "checkout/bin"), { recursive: true });
    mkdirSync(join(dir, "checkout/dist"));
    writeFileSync(join(dir, "checkout/bin/kepler-model.js"), "");
    writeFileSync(join(dir, "checkout/dist/kepler-model.mjs"), "");
    expect(baselineDir(["estimator", "--only=floor"], dir)).toBeUndefined();
    expect(baselineDir(["--baseline=checkout"], dir)).toBe(join(dir, "checkout"));
  });

  it("names the missing file of a folder that is not a built checkout", () => {
    const dir = mkdtempSync(join(tmpdir(), "baseline-"));
    dirs.push(dir);
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin/kepler-model.js"), "");
    expect(() => baselineDir([`--baseline=${dir}`])).toThrow(`${join(dir, "dist/kepler-model.mjs")} is missing`);
    expect(() => baselineDir(["--baseline="])).toThrow("--baseline: expected the folder of a built checkout");
  });
});
