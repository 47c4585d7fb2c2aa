// Kepler 0.11.4's own readers hammering the tree while the exporter's writer rewrites it on the wall clock
// (every 5 ms, the modelled watts changing every 50 ms, the counters wrapping several times a second): no read
// may see an empty or partial file (Kepler's parse would fail) or a counter that moved back other than by
// a wrap at max_energy_range_uj, and every hwmon reading must be a watts value the writer set.
import { rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TreeWriter } from "../../services/vm-power/index.js";
import { buildKeplerProbe, type BuiltProbe, KEPLER_GO, KeplerProbe } from "./support/kepler-probe.js";
import { needs } from "../support/system-tools.js";
import { VM_ZONES } from "./support/modelled-vm.js";
import { scratchFolder } from "./support/tree-scenario.js";

const READS = 10_000;
const MAX_WATTS = 60;

describe("Kepler v0.11.4's readers against the writer", needs(...KEPLER_GO), () => {
  let built: BuiltProbe;
  beforeAll(() => {
    built = buildKeplerProbe();
  }, 180_000);
  afterAll(() => built?.remove());

  it(`${READS} reads per meter never see an empty, partial or falling value`, async () => {
    const root = scratchFolder("kepler-hammer-");
    // Counters a few joules below the range, so every zone wraps early in the run.
    writeFileSync(
      `${root}/.state.json`,
      JSON.stringify({
        zones: VM_ZONES,
        totalsJoules: VM_ZONES.map(() => 27),
        watts: VM_ZONES.map(() => 30),
        atSeconds: Date.now() / 1000,
        bootId: "",
      }),
    );
    const writer = TreeWriter.open({
      root,
      layouts: ["powercap", "hwmon"],
      zones: VM_ZONES,
      maxEnergyRangeUj: 30_000_000,
      statePath: `${root}/.state.json`,
    });
    const probes: KeplerProbe[] = [];
    let step = 0;
    const ticks = setInterval(() => {
      step++;
      writer.setWatts(VM_ZONES.map((_, z) => 5 + ((step * 7 + z * 13) % 50)));
      writer.flush();
    }, 50);
    writer.start(5, 100);
    try {
      const rapl = await KeplerProbe.start(built.binary, "rapl", root);
      const hwmon = await KeplerProbe.start(built.binary, "hwmon", root);
      probes.push(rapl.probe, hwmon.probe);
      const flushesBefore = writer.stats.flushes;
      const [energy, power] = await Promise.all([rapl.probe.hammer(READS, MAX_WATTS), hwmon.probe.hammer(READS, MAX_WATTS)]);
      const flushes = writer.stats.flushes - flushesBefore;
      console.log(
        `hammer: rapl ${energy.reads} zone reads in ${energy.seconds.toFixed(2)} s (${energy.wraps} wraps), ` +
          `hwmon ${power.reads} in ${power.seconds.toFixed(2)} s, ${flushes} writer flushes meanwhile`,
        JSON.stringify({ energy, power }),
      );
      expect(energy).toMatchObject({ reads: READS * 4, failed: 0, badDecreases: 0, errors: [] });
      expect(power).toMatchObject({ reads: READS * 4, failed: 0, outOfRange: 0, errors: [] });
      expect(energy.wraps).toBeGreaterThanOrEqual(4);
      expect(flushes).toBeGreaterThan(20);
      expect(writer.stats.errors).toBe(0);
    } finally {
      clearInterval(ticks);
      writer.close();
      for (const probe of probes) probe.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
