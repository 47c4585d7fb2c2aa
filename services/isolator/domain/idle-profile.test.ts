// The idle profiler on the recorded idle data (idle-2023-12-13: 7 samples, irregular steps, last energy
// delta 0) with the reference profiler's bugs fixed, and the profile isolator on the recorded coremark data.
import { describe, expect, it } from "vitest";
import { readReferenceProfile } from "../../../test/fixtures/isolator/goldens.js";
import { containerExtract } from "../../../test/support/container-extract.js";
import { readGoldenCsv, recordedResponseText, relativeError } from "../../../test/support/extractor-fixtures.js";
import { type DataTable, createDataTable, getColumn } from "../../domain/data-table.js";
import { parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { extract } from "../../extractor/domain/extract.js";
import { containerNameOf } from "./container-split.js";
import { idleContainerNames } from "./idle-containers.js";
import { type IdleProfile, backgroundWattsOf, buildIdleProfiles, profilesToJson } from "./idle-profile.js";
import { isolate } from "./isolate.js";

const TOLERANCE = 1e-9;
const idle = parsePrometheusResponse(recordedResponseText("idle"));
const coremark = parsePrometheusResponse(recordedResponseText("coremark"));

function idleProfiles(): IdleProfile[] {
  return buildIdleProfiles(
    (["rapl-sysfs", "acpi"] as const).map((energySource) => ({
      energySource,
      table: extract(idle, { energySource, featureGroup: "BPFOnly", level: "node", extractor: "default", nodeType: 0 }).table,
    })),
  );
}

function profileOf(profiles: IdleProfile[], component: string): IdleProfile {
  const found = profiles.find((profile) => profile.component === component);
  if (found === undefined) throw new Error(`no ${component} profile`);
  return found;
}

/** The reference extractor's idle AbsPower table (power divided by the mean step, 14.5 s), as a DataTable. */
function referenceIdleTable(source: "rapl-sysfs" | "acpi"): DataTable {
  const golden = readGoldenCsv(`idle_extract_abs_${source}_BPFOnly.csv`);
  return createDataTable(
    golden.rows.map((fields) => Number(fields[0])),
    golden.header.slice(1).map((name, k) => [name, golden.rows.map((fields) => Number(fields[k + 1]))] as const),
  );
}

// Our extractor divides each energy delta by the row's own step (docs/deviations.md, "Extractor"); the
// reference divides by the mean step 14.5 s. The idle rows' steps are 15, 15, 21, 15, 18 s.
const IDLE_STEPS = [15, 15, 21, 15, 18];
function perRowStepExtremes(source: "rapl-sysfs" | "acpi", column: string): [number, number] {
  const golden = readGoldenCsv(`idle_extract_abs_${source}_BPFOnly.csv`);
  const at = golden.header.indexOf(column);
  const watts = golden.rows.map((fields, row) => (Number(fields[at]) * 14.5) / IDLE_STEPS[row]!);
  return [Math.min(...watts), Math.max(...watts)];
}

describe("idle profiles (reference profiler, bugs fixed)", () => {
  const referenceProfiles = buildIdleProfiles([
    { energySource: "rapl-sysfs", table: referenceIdleTable("rapl-sysfs") },
    { energySource: "acpi", table: referenceIdleTable("acpi") },
  ]);

  it("on the reference's idle power: package 101.98-170.837 W, dram 43.06-72.099 W, platform 118.55-120 W, one unit each", () => {
    const expected: Record<string, [number, number]> = {
      package: [101.97703448275821, 170.8373103448278],
      dram: [43.06158620689656, 72.09889655172421],
      platform: [118.55172413793103, 120.0],
      core: [0, 0],
      uncore: [0, 0],
    };
    expect(referenceProfiles.map((profile) => `${profile.energySource}/${profile.component}`)).toEqual([
      "rapl-sysfs/package",
      "rapl-sysfs/core",
      "rapl-sysfs/uncore",
      "rapl-sysfs/dram",
      "acpi/platform",
    ]);
    for (const profile of referenceProfiles) {
      expect([profile.minWatts, profile.maxWatts]).toEqual(expected[profile.component]);
      expect(profile.nodeType).toBe(0);
      // `core` counts its own column only; the reference's substring match also counted uncore_power.
      expect(profile.unitCount).toBe(1);
    }
  });

  it("differs from the reference's buggy profile exactly by its bugs", () => {
    const reference = readReferenceProfile();
    for (const profile of referenceProfiles) {
      const buggy = reference[profile.energySource]![profile.component]!["0"]!;
      // The reference divided the watts by the first step (15 s) a second time...
      expect(relativeError(profile.maxWatts, buggy.max_watt * 15)).toBeLessThan(TOLERANCE);
      // ...and kept the zero-delta last sample, so every minimum is 0.
      expect(buggy.min_watt).toBe(0);
    }
    expect(reference["rapl-sysfs"]!.core!["0"]!["#unit"]).toBe(2);
  });

  it("on our extractor's idle table: the same rows with power over each row's own step", () => {
    const profiles = idleProfiles();
    const columns: Record<string, ["rapl-sysfs" | "acpi", string]> = {
      package: ["rapl-sysfs", "package_power"],
      dram: ["rapl-sysfs", "dram_power"],
      platform: ["acpi", "platform_power"],
    };
    for (const [component, [source, column]] of Object.entries(columns)) {
      const [min, max] = perRowStepExtremes(source, column);
      expect(relativeError(profileOf(profiles, component).minWatts, min)).toBeLessThan(TOLERANCE);
      expect(relativeError(profileOf(profiles, component).maxWatts, max)).toBeLessThan(TOLERANCE);
    }
    // platform: 118.55 * 14.5 / 21 = 81.86 W is the 21 s row, 120 * 14.5 / 15 = 116 W the second row.
    expect(profileOf(profiles, "platform").minWatts).toBeCloseTo(82, 9);
    expect(profileOf(profiles, "platform").maxWatts).toBeCloseTo(116, 9);
    expect(profileOf(profiles, "core")).toMatchObject({ minWatts: 0, maxWatts: 0, unitCount: 1 });
  });

  it("writes the reference's file shape", () => {
    const json = profilesToJson(referenceProfiles);
    expect(Object.keys(json)).toEqual(["rapl-sysfs", "acpi"]);
    expect(Object.keys(json["rapl-sysfs"]!)).toEqual(["package", "core", "uncore", "dram"]);
    expect(json.acpi!.platform!["0"]).toEqual({ min_watt: 118.55172413793103, max_watt: 120, "#unit": 1 });
  });

  it("reads the idle node's 40 background containers from kepler_container_bpf_cpu_time_ms_total", () => {
    const { names, notices } = idleContainerNames(idle);
    expect(names.length).toBe(40);
    expect(names.slice(0, 3)).toEqual(["config-reloader", "controller", "coredns"]);
    expect(names).toContain("system_processes");
    expect(notices).toEqual([]);
  });
});

describe("profile isolator on coremark with the idle profiles", () => {
  const profiles = idleProfiles();
  const backgroundContainerNames = idleContainerNames(idle).names;

  for (const source of ["rapl-sysfs", "acpi"] as const) {
    it(`${source}: labels are node power minus (min + max) / 2, clamped at 0; features only of target containers`, async () => {
      const containers = containerExtract(coremark, source);
      const { table, summary } = await isolate(containers.table, {
        isolator: "profile",
        energySource: source,
        idleProfiles: profiles,
        backgroundContainerNames,
      });
      expect(summary.isolator).toBe("profile");
      // coremark and grafana are the only containers the idle node did not run.
      const targetIds = new Set(containers.table.rowIds!.filter((id) => !backgroundContainerNames.includes(containerNameOf(id))));
      expect(new Set([...targetIds].map(containerNameOf))).toEqual(new Set(["coremark", "grafana"]));
      expect(summary.targetContainerCount).toBe(targetIds.size);
      expect(summary.backgroundContainerNames.length).toBe(17);

      // Labels, hand-checked against the reference's node power (extract_abs golden).
      const abs = readGoldenCsv(`extract_abs_${source}_CounterOnly.csv`);
      const background = Object.fromEntries(summary.backgrounds.map((entry) => [entry.labelColumn, entry.watts]));
      const midpoint = (column: string) => {
        const [min, max] = perRowStepExtremes(source, column);
        return (min + max) / 2;
      };
      if (source === "rapl-sysfs") {
        expect(relativeError(background.package_power!, midpoint("package_power"))).toBeLessThan(TOLERANCE);
        expect(relativeError(background.dram_power!, midpoint("dram_power"))).toBeLessThan(TOLERANCE);
        expect(background.core_power).toBe(0);
      } else {
        expect(relativeError(background.platform_power!, 99)).toBeLessThan(TOLERANCE);
      }
      let clamped = 0;
      for (const [label, watts] of Object.entries(background)) {
        const at = abs.header.indexOf(label);
        const ours = getColumn(table, label);
        const byTime = new Map(abs.rows.map((fields) => [Number(fields[0]), Number(fields[at])]));
        Array.from(table.timestamps).forEach((timestamp, row) => {
          const expected = Math.max(0, byTime.get(timestamp)! - watts);
          if (byTime.get(timestamp)! - watts < 0) clamped++;
          expect(Math.abs(ours[row]! - expected)).toBeLessThan(1e-8);
        });
        expect(Math.min(...ours)).toBeGreaterThanOrEqual(0);
      }
      // rapl: dram (38-51 W) is always below its idle background (about 54 W) and so are the quieter
      // package rows; acpi platform (171-367 W) is always above its 99 W.
      if (source === "rapl-sysfs") {
        expect(clamped).toBeGreaterThanOrEqual(187);
        expect(summary.notices).toContain(
          `${clamped} label values were below the idle background and were clamped at 0 (DynPower labels are never negative)`,
        );
      } else {
        expect(clamped).toBe(0);
        expect(summary.notices).toEqual([]);
      }

      // Features: the sum over target containers only, computed here row by row.
      const rowsAt = new Map<number, number>();
      const cycles = getColumn(containers.table, "cpu_cycles");
      containers.table.rowIds!.forEach((id, row) => {
        if (!targetIds.has(id)) return;
        const timestamp = containers.table.timestamps[row]!;
        rowsAt.set(timestamp, (rowsAt.get(timestamp) ?? 0) + cycles[row]!);
      });
      const ourCycles = getColumn(table, "cpu_cycles");
      expect(table.rowCount).toBe(rowsAt.size);
      Array.from(table.timestamps).forEach((timestamp, row) => {
        expect(relativeError(ourCycles[row]!, rowsAt.get(timestamp)!)).toBeLessThan(TOLERANCE);
      });
    });
  }

  it("falls back to min when the node type has no profile, or refuses without the fallback", async () => {
    const containers = containerExtract(coremark, "acpi");
    const options = {
      isolator: "profile" as const,
      energySource: "acpi" as const,
      idleProfiles: profiles,
      backgroundContainerNames,
      nodeType: 3,
    };
    const fallback = await isolate(containers.table, { ...options, fallBackToMin: true });
    expect(fallback.summary.isolator).toBe("min");
    expect(fallback.summary.backgrounds).toEqual([{ labelColumn: "platform_power", watts: 171 }]);
    expect(fallback.summary.notices).toEqual([
      "no idle profile for platform on node type 3: the min isolator was applied instead (profile if a profile exists for the node type, else min)",
    ]);
    await expect(isolate(containers.table, options)).rejects.toThrow(
      "the profile isolator has no idle profile for platform on node type 3 of acpi: build profiles from idle data of that node type (BuildIdleProfile) or allow the fallback to min",
    );
  });

  it("background power is (min + max) / 2 times the units", () => {
    expect(
      backgroundWattsOf({ energySource: "acpi", component: "platform", nodeType: 0, minWatts: 100, maxWatts: 120, unitCount: 2 }),
    ).toBe(220);
  });
});
