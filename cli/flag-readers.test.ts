import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "./command.js";
import {
  assertInputFile,
  assertOutputFolder,
  choiceFlag,
  energySourceFlag,
  featureGroupFlag,
  integerFlag,
  knownItemsFlag,
  listFlag,
  numberFlag,
  pairsFlag,
  requiredFlag,
  textFlag,
  timeFlag,
} from "./flag-readers.js";

const usageError = (message: string) => new UsageError(message);

describe("flag readers", () => {
  it("text: undefined when absent, a usage error when empty", () => {
    expect(textFlag({}, "out")).toBeUndefined();
    expect(textFlag({ out: "a.csv" }, "out")).toBe("a.csv");
    expect(() => textFlag({ out: "" }, "out")).toThrow(usageError("--out needs a value"));
    expect(() => requiredFlag({}, "out")).toThrow(usageError("--out is required"));
    expect(() => requiredFlag({}, "to", "--to s3://bucket/prefix is required")).toThrow("--to s3://bucket/prefix is required");
  });

  it("list: trimmed items, empties dropped, an empty value is an empty list", () => {
    expect(listFlag({ t: " a, b,,c " }, "t")).toEqual(["a", "b", "c"]);
    expect(listFlag({ t: "" }, "t")).toEqual([]);
    expect(listFlag({}, "t")).toEqual([]);
    expect(() => knownItemsFlag({ t: "a,x,y" }, "t", ["a", "b"], "trainer")).toThrow(
      usageError('--t: unknown trainer "x", "y" (known: a, b)'),
    );
    expect(knownItemsFlag({ t: "b,a" }, "t", ["a", "b"], "trainer")).toEqual(["b", "a"]);
  });

  it("choice, numbers, integers and times name the flag and the value", () => {
    expect(choiceFlag({}, "level", ["node", "container"], "node")).toBe("node");
    expect(() => choiceFlag({ level: "pod" }, "level", ["node", "container"], "node")).toThrow(
      usageError('--level must be one of node, container, got "pod"'),
    );
    expect(numberFlag({ step: "1.5" }, "step", { positive: true })).toBe(1.5);
    expect(() => numberFlag({ step: "0" }, "step", { positive: true })).toThrow(
      usageError('--step must be a positive number, got "0"'),
    );
    expect(() => numberFlag({ step: "x" }, "step")).toThrow(usageError('--step must be a number, got "x"'));
    expect(numberFlag({ "max-mae": "0" }, "max-mae", { min: 0 })).toBe(0);
    expect(() => numberFlag({ "max-mae": "-1" }, "max-mae", { min: 0 })).toThrow(
      usageError('--max-mae must be a number >= 0, got "-1"'),
    );
    expect(integerFlag({ seed: "3" }, "seed", { min: 0 })).toBe(3);
    expect(() => integerFlag({ seed: "-1" }, "seed", { min: 0 })).toThrow(
      usageError('--seed must be a non-negative integer, got "-1"'),
    );
    expect(() => integerFlag({ "node-type": "1.5" }, "node-type")).toThrow(
      usageError('--node-type must be an integer, got "1.5"'),
    );
    expect(timeFlag({ start: "1695361428" }, "start")).toBe(1695361428);
    expect(timeFlag({ start: "2023-09-22T05:43:48Z" }, "start")).toBe(1695361428);
    expect(() => timeFlag({ start: "yesterday" }, "start")).toThrow(
      usageError('--start must be Unix seconds or an ISO 8601 time, got "yesterday"'),
    );
    expect(pairsFlag({ s: "a=1,b=x=y" }, "s")).toEqual([
      ["a", "1"],
      ["b", "x=y"],
    ]);
    expect(() => pairsFlag({ s: "a" }, "s")).toThrow(usageError('--s takes name=value pairs separated by commas, got "a"'));
  });

  it("energy sources and feature groups: aliases read, unknown names a usage error listing the known ones", () => {
    expect(energySourceFlag({ source: "intel_rapl" }, "source")).toBe("rapl-sysfs");
    expect(energySourceFlag({}, "source")).toBeUndefined();
    expect(() => energySourceFlag({}, "source", true)).toThrow(usageError("--source is required"));
    expect(() => energySourceFlag({ source: "gpu" }, "source")).toThrow(/^--source: unknown energy source "gpu" \(known: /);
    expect(() => energySourceFlag({ source: "gpu" }, "source")).toThrow(UsageError);
    expect(featureGroupFlag({ fg: "BPFOnly" }, "fg", true)).toBe("BPFOnly");
    expect(() => featureGroupFlag({ fg: "bpf" }, "fg")).toThrow(/^--fg: unknown feature group "bpf" \(known: Full, /);
  });

  describe("files", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "flag-readers-"));
      await writeFile(join(dir, "in.json"), "{}");
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("an input must be an existing file, an output's folder must exist", async () => {
      await expect(assertInputFile(join(dir, "in.json"), "input")).resolves.toBe(join(dir, "in.json"));
      await expect(assertInputFile(join(dir, "none.json"), "input")).rejects.toThrow(
        usageError(`--input ${join(dir, "none.json")}: no such file`),
      );
      await expect(assertInputFile(dir, "input")).rejects.toThrow(usageError(`--input ${dir}: not a file`));
      await expect(assertOutputFolder(join(dir, "out.csv"), "out")).resolves.toBe(join(dir, "out.csv"));
      await expect(assertOutputFolder(join(dir, "in.json", "out.csv"), "out")).rejects.toThrow(
        usageError(`--out ${join(dir, "in.json", "out.csv")}: no folder ${join(dir, "in.json")} to write into`),
      );
    });
  });
});
