// One run of the exporter's tree under Kepler's reader, on one clock the test drives (see the test file
// for why): ticks every 5 s, reads every `readIntervalSeconds` with jitter, a model reload, two ticks
// without a feature, an exporter restart and counter wraps, and the watts the test expects for every read.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createComponentPredictor } from "../../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../../services/kit/observe/logger.js";
import { fileModelProvider, type TickOutcome, tickIntoTree, TreeWriter, VmExporter } from "../../../services/vm-power/index.js";
import type { KeplerProbe, ZoneRead } from "./kepler-probe.js";
import { type LinearVmModel, MadeUpGuest, modelWatts, VM_ZONES, writeVmModel } from "./modelled-vm.js";

export const MODEL_A: LinearVmModel = { intercept: [10, 6, 2, 3], perUserRatio: [40, 30, 4, 5] };
export const MODEL_B: LinearVmModel = { intercept: [12, 7, 2.5, 3.5], perUserRatio: [50, 36, 5, 6] };
const TICK_SECONDS = 5;
/** Small enough that the counters wrap every 20-40 s, large enough for one wrap per read at most. */
export const SCENARIO_RANGE_UJ = 500_000_000;

/** A folder on tmpfs where there is one (what an emptyDir of medium Memory or /run gives the exporter). */
export function scratchFolder(prefix: string): string {
  return mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), prefix));
}

export interface ScenarioReads {
  /** Per read and zone: Kepler's watts and the test's expected watts. */
  samples: Array<{ meter: string; zone: string; seconds: number; kepler: number; expected: number; wrapped: boolean }>;
  outcomes: TickOutcome[];
  errors: string[];
  restartSeconds: number;
  reloadSeconds: number;
}

// Expected watts: piecewise constant from each change on; the average over [from, to] for energy meters.
class Schedule {
  private readonly changes: Array<{ at: number; watts: number[] }> = [{ at: 0, watts: VM_ZONES.map(() => 0) }];
  set(at: number, watts: number[]): void {
    this.changes.push({ at, watts });
  }
  at(seconds: number, zone: number): number {
    return this.changes.filter((c) => c.at <= seconds).at(-1)!.watts[zone]!;
  }
  average(from: number, to: number, zone: number): number {
    let joules = 0;
    this.changes.forEach((change, i) => {
      const start = Math.max(change.at, from);
      const end = Math.min(this.changes[i + 1]?.at ?? Infinity, to);
      if (end > start) joules += change.watts[zone]! * (end - start);
    });
    return joules / (to - from);
  }
}

/** Runs the scenario; `probes` read the same tree (rapl and hwmon meters). */
export async function runTreeScenario(options: {
  root: string;
  probes: Record<string, KeplerProbe>;
  readIntervalSeconds: number;
  reads: number;
  updateMs: number;
}): Promise<ScenarioReads> {
  const { root, readIntervalSeconds: interval, reads, updateMs } = options;
  const period = updateMs / 1000;
  const modelPath = join(root, "..", `${root.split("/").at(-1)}-model.zip`);
  writeVmModel(modelPath, MODEL_A);
  let now = 0;
  const clock = () => now;
  const guest = new MadeUpGuest();
  let userRatio = 0.3;
  let dropFeature = false;
  const schedule = new Schedule();
  const outcomes: TickOutcome[] = [];
  const openWriter = () =>
    TreeWriter.open({
      root,
      layouts: ["powercap", "hwmon"],
      zones: VM_ZONES,
      maxEnergyRangeUj: SCENARIO_RANGE_UJ,
      statePath: join(root, ".state.json"),
      clock,
      bootId: "test-boot",
    });
  const newExporter = () =>
    new VmExporter({
      read: async () => guest.snapshot(now, userRatio, dropFeature),
      power: { kind: "model", provider: fileModelProvider(modelPath, createComponentPredictor) },
      nodeName: "vm",
      logger: silentLogger(),
    });
  let writer = openWriter();
  let exporter = newExporter();
  let model = MODEL_A;
  await exporter.refreshModel();
  outcomes.push(await tickIntoTree(exporter, writer));

  const duration = 2 * TICK_SECONDS + reads * interval;
  const reloadSeconds = Math.round((duration * 0.35) / TICK_SECONDS) * TICK_SECONDS - 0.5;
  const dropTick = Math.round((duration * 0.5) / TICK_SECONDS);
  // Reads: from 7.37 s on, each after the interval with a jitter of up to 3 % (Kepler's ticker drifts).
  let seed = 12345;
  const jitter = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.06 * interval;
  const readTimes = Array.from({ length: reads + 1 }, (_, n) => 7.37 + n * interval);
  for (let n = 1; n < readTimes.length; n++) readTimes[n]! += jitter();
  // The restart: just after a read at 70 % of the run, down for half an interval (no read falls in it).
  const restartRead = Math.round(reads * 0.7);
  const restartSeconds = readTimes[restartRead]! + 0.1 * interval;
  const downtime = 0.5 * interval;

  type Event = { at: number; kind: "tick" | "read" | "reload" | "restart"; index: number };
  const events: Event[] = [
    ...Array.from({ length: Math.ceil(duration / TICK_SECONDS) + 2 }, (_, k) => ({
      at: (k + 1) * TICK_SECONDS,
      kind: "tick" as const,
      index: k + 1,
    })),
    ...readTimes.map((at, index) => ({ at, kind: "read" as const, index })),
    { at: reloadSeconds, kind: "reload", index: 0 },
    { at: restartSeconds, kind: "restart", index: 0 },
  ];
  events.sort((a, b) => a.at - b.at);
  const samples: ScenarioReads["samples"] = [];
  const errors: string[] = [];
  const previousRead: Record<string, number> = {};
  let lastEventAt = 0;
  let downUntil = 0;
  for (const event of events) {
    if (event.at > readTimes.at(-1)!) break;
    // No ticks while the exporter is down.
    if (event.kind === "tick" && event.at < downUntil) continue;
    if (event.kind === "read") {
      // The timer's last flush before the read is what the reader finds (see the test file).
      const flushAt = Math.floor(event.at / period) * period;
      if (flushAt > lastEventAt) {
        now = flushAt;
        writer.flush();
      }
      now = event.at;
      for (const [meter, probe] of Object.entries(options.probes)) {
        const zones: ZoneRead[] = await probe.read(event.at);
        for (const zone of zones) {
          if (zone.error !== undefined) errors.push(`${meter} ${zone.name} at ${event.at}: ${zone.error}`);
          if (zone.watts === null) continue;
          const z = VM_ZONES.indexOf(zone.name);
          const expected = meter === "rapl" ? schedule.average(previousRead[meter]!, event.at, z) : schedule.at(event.at, z);
          samples.push({ meter, zone: zone.name, seconds: event.at, kepler: zone.watts, expected, wrapped: zone.wrapped });
        }
        previousRead[meter] = event.at;
      }
    } else if (event.kind === "tick") {
      now = event.at;
      userRatio = 0.3 + 0.2 * Math.sin(event.index * 0.7);
      dropFeature = event.index === dropTick;
      const outcome = await tickIntoTree(exporter, writer);
      outcomes.push(outcome);
      if (outcome === "ok") schedule.set(event.at, modelWatts(model, userRatio));
    } else if (event.kind === "reload") {
      now = event.at;
      writeVmModel(modelPath, MODEL_B);
      model = MODEL_B;
      await exporter.refreshModel();
    } else {
      now = event.at;
      writer.close();
      now = event.at + downtime;
      downUntil = now;
      writer = openWriter();
      exporter = newExporter();
      await exporter.refreshModel();
      outcomes.push(await tickIntoTree(exporter, writer));
    }
    lastEventAt = now;
  }
  writer.close();
  return { samples, outcomes, errors, restartSeconds, reloadSeconds };
}
