// Domain tests of the modelled tree: counters in µJ that wrap at exactly the range, a restart that
// continues from the saved state and the files (never below what a reader saw), downtime at the last watts.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EnergyCounters } from "./energy-counters.js";
import { TreeWriter } from "./tree-writer.js";

const ZONES = ["package", "core", "uncore", "dram"];
let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function open(clock: () => number, range = 1_000_000_000) {
  return TreeWriter.open({
    root: join(dir, "sys"),
    layouts: ["powercap", "hwmon"],
    zones: ZONES,
    maxEnergyRangeUj: range,
    statePath: join(dir, "state.json"),
    clock,
    bootId: "boot-1",
  });
}
const energy = (folder: string) => Number(readFileSync(join(dir, "sys/class/powercap", folder, "energy_uj"), "utf8"));

describe("EnergyCounters", () => {
  it("integrates watts x seconds in µJ and wraps at exactly the range", () => {
    const counters = new EnergyCounters(ZONES, 50_000_000, 0);
    counters.setWatts([20, 10, 0, -5], 0);
    counters.advanceTo(2);
    expect([0, 1, 2, 3].map((z) => counters.counterMicrojoules(z))).toEqual([40_000_000, 20_000_000, 0, 0]);
    counters.advanceTo(3);
    expect(counters.counterMicrojoules(0)).toBe(10_000_000); // 60 J - 50 J
    counters.advanceTo(2.5); // a clock that goes back adds nothing
    expect(counters.counterMicrojoules(0)).toBe(10_000_000);
  });
});

describe("TreeWriter", () => {
  it("writes Linux's names and continues across a restart, adding the downtime at the last watts", () => {
    dir = mkdtempSync(join(tmpdir(), "tree-writer-"));
    let now = 100;
    const first = open(() => now);
    first.setWatts([20, 10, 4, 2]);
    now = 110;
    first.close();
    expect(readFileSync(join(dir, "sys/class/powercap/intel-rapl:0/name"), "utf8")).toBe("package-0\n");
    expect(readFileSync(join(dir, "sys/class/powercap/intel-rapl:0:2/name"), "utf8")).toBe("dram\n");
    expect(readFileSync(join(dir, "sys/class/hwmon/hwmon0/power2_label"), "utf8")).toBe("core\n");
    expect(readFileSync(join(dir, "sys/class/hwmon/hwmon0/power1_input"), "utf8")).toBe("20000000\n");
    expect(energy("intel-rapl:0")).toBe(200_000_000);
    now = 113; // 3 s down
    const second = open(() => now);
    expect(energy("intel-rapl:0")).toBe(260_000_000);
    expect(energy("intel-rapl:0:0")).toBe(130_000_000);
    second.close();
  });

  it("after a crash continues from the files when they are ahead of the saved state", () => {
    dir = mkdtempSync(join(tmpdir(), "tree-writer-"));
    let now = 0;
    const first = open(() => now);
    first.setWatts([10, 0, 0, 0]);
    first.persist(); // saved at 0 s
    now = 5;
    first.flush(); // files at 50 J, state still at 0 J: the process dies here
    now = 7;
    const second = open(() => now);
    // 50 J shown, plus the 2 s after the last write at 10 W (not the 7 s since the save).
    expect(energy("intel-rapl:0")).toBe(70_000_000);
    second.close();
  });

  it("adds no downtime across a reboot", () => {
    dir = mkdtempSync(join(tmpdir(), "tree-writer-"));
    let now = 0;
    const first = open(() => now);
    first.setWatts([10, 0, 0, 0]);
    now = 1;
    first.close();
    now = 60;
    const second = TreeWriter.open({
      root: join(dir, "sys"),
      layouts: ["powercap"],
      zones: ZONES,
      maxEnergyRangeUj: 1_000_000_000,
      statePath: join(dir, "state.json"),
      clock: () => now,
      bootId: "boot-2",
    });
    expect(energy("intel-rapl:0")).toBe(10_000_000);
    second.close();
  });
});
