// Kepler 0.11.4's OWN reader (internal/device, compiled unchanged from the fixture with Debian's Go) over the
// exporter's modelled tree: the meters are built as Kepler's createCPUMeter builds them, Init() must succeed,
// and the watts Kepler's rule gives from consecutive reads (internal/monitor/node.go) must equal the watts
// the exporter models within 1 % on every read, at a 1 s and at Kepler's default 5 s interval, through a
// model reload, two ticks without a feature, an exporter restart and counter wraps; the hwmon meter too.
//
// Time: the writer's clock and the reads' timestamps are one clock the test drives (Kepler's monitor takes
// its timestamps from an injectable clock too), so 64 reads at 5 s take seconds, not 5 minutes; the files
// are real and Kepler's code reads them. The writer's timer would flush every update period; between two
// reads nobody looks at the files, so the test performs the one flush that precedes each read (the
// content the timer leaves: counters are integrals of piecewise-constant watts, the same whatever the
// flushes in between). Reads are jittered by up to 3 % of the interval, so the files' staleness (up to one
// update period) differs from read to read, as it would against a real clock. Writes racing reads are the
// hammer test's subject (kepler-hammer.test.ts), on the wall clock.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildKeplerProbe, type BuiltProbe, KEPLER_GO, KeplerProbe } from "./support/kepler-probe.js";
import { needs } from "../support/system-tools.js";
import { runTreeScenario, SCENARIO_RANGE_UJ, scratchFolder } from "./support/tree-scenario.js";
import { VM_ZONES } from "./support/modelled-vm.js";
import { TreeWriter } from "../../services/vm-power/index.js";

const ZONE_NAMES = ["core", "dram", "package", "uncore"];

describe("Kepler v0.11.4's reader over the modelled tree", needs(...KEPLER_GO), () => {
  let built: BuiltProbe;
  beforeAll(() => {
    built = buildKeplerProbe();
  }, 180_000);
  afterAll(() => built?.remove());

  for (const { interval, reads, updateMs } of [
    { interval: 1, reads: 70, updateMs: 5 },
    { interval: 5, reads: 64, updateMs: 10 },
  ])
    it(`reads every ${interval} s: ${reads} reads of RAPL and hwmon within 1 % of the modelled watts (tree updated every ${updateMs} ms)`, async () => {
      const root = scratchFolder("kepler-tree-");
      const probes: KeplerProbe[] = [];
      try {
        // The tree must exist before Kepler starts (Init reads it): the exporter writes it when it opens.
        TreeWriter.open({
          root,
          layouts: ["powercap", "hwmon"],
          zones: VM_ZONES,
          maxEnergyRangeUj: SCENARIO_RANGE_UJ,
          statePath: `${root}/.state.json`,
          clock: () => 0,
          bootId: "test-boot",
        }).close();
        const started = {
          rapl: await KeplerProbe.start(built.binary, "rapl", root),
          hwmon: await KeplerProbe.start(built.binary, "hwmon", root),
        };
        probes.push(started.rapl.probe, started.hwmon.probe);
        for (const meter of [started.rapl.start, started.hwmon.start]) {
          expect(meter.initError).toBeUndefined();
          expect(meter.zones!.map((z) => z.name)).toEqual(ZONE_NAMES);
          expect(meter.primary).toBe("package");
        }
        expect(started.rapl.start.zones!.map((z) => z.maxEnergyUj)).toEqual(ZONE_NAMES.map(() => SCENARIO_RANGE_UJ));
        expect(started.hwmon.start.zones!.map((z) => z.maxEnergyUj)).toEqual([0, 0, 0, 0]);

        const run = await runTreeScenario({
          root,
          probes: { rapl: started.rapl.probe, hwmon: started.hwmon.probe },
          readIntervalSeconds: interval,
          reads,
          updateMs,
        });
        expect(run.errors).toEqual([]);
        // Ticks: the first reading, ok ones, two without the feature (that tick and the next, whose pair
        // lacks it), and the restarted exporter's first reading.
        expect(run.outcomes.filter((o) => o === "error")).toHaveLength(2);
        expect(run.outcomes.filter((o) => o === "first-reading")).toHaveLength(2);
        for (const meter of ["rapl", "hwmon"]) {
          const samples = run.samples.filter((s) => s.meter === meter);
          const errors = samples.map((s) => Math.abs(s.kepler - s.expected) / s.expected);
          const sorted = [...errors].sort((a, b) => a - b);
          console.log(
            `kepler ${meter} every ${interval} s: ${samples.length / 4} reads x 4 zones, ` +
              `watts error max ${(sorted.at(-1)! * 100).toFixed(3)} %, median ${(sorted[sorted.length >> 1]! * 100).toFixed(3)} %, ` +
              `wraps ${samples.filter((s) => s.wrapped).length}`,
          );
          expect(samples.length / 4).toBeGreaterThanOrEqual(60);
          expect(sorted.at(-1)!).toBeLessThan(0.01);
          // The run covers the reload and the restart: reads after both.
          expect(samples.some((s) => s.seconds > run.restartSeconds)).toBe(true);
          expect(samples.some((s) => s.seconds > run.reloadSeconds && s.seconds < run.restartSeconds)).toBe(true);
        }
        const wraps = run.samples.filter((s) => s.meter === "rapl" && s.wrapped);
        expect(wraps.length).toBeGreaterThan(0);
      } finally {
        for (const probe of probes) probe.close();
        rmSync(root, { recursive: true, force: true });
        rmSync(`${root}-model.zip`, { force: true });
      }
    }, 120_000);
});
