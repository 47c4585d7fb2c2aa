// Keeps a modelled sysfs tree current: the exporter sets the modelled watts at its tick, and the writer
// advances the counters and rewrites the files every `updateMs` (far more often than any reader polls, so
// a reader's interval holds the modelled energy to within one update: error <= updateMs / read interval),
// and saves the counters every `persistMs` and at close. The clock is injectable (tests drive time).
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { createHwmonTree } from "./hwmon-tree.js";
import type { EnergyCounters } from "./energy-counters.js";
import type { ModelledTree } from "./modelled-tree.js";
import { createPowercapTree } from "./powercap-tree.js";
import { restoreCounters } from "./restore-counters.js";
import { currentBootId, readTreeState, writeTreeState } from "./tree-state.js";

export type TreeLayout = "powercap" | "hwmon";

export interface TreeWriterOptions {
  /** The folder Kepler's host.sysfs points at. */
  root: string;
  layouts: readonly TreeLayout[];
  /** Zone names in the model's order (the rapl-sysfs components, or a subset with package). */
  zones: readonly string[];
  maxEnergyRangeUj: number;
  statePath: string;
  /** Seconds on a clock that keeps counting across restarts (default: the wall clock). */
  clock?: () => number;
  /** This boot's id (default: /proc/sys/kernel/random/boot_id). */
  bootId?: string;
  /** The longest downtime a restart adds at the last watts (default 600 s). */
  maxDowntimeSeconds?: number;
}

/** What the writer has done, for /metrics. */
export interface TreeWriterStats {
  flushes: number;
  filesWritten: number;
  errors: number;
  lastError: string;
}

/** The tree and its counters (see the file comment). */
export class TreeWriter {
  readonly stats: TreeWriterStats = { flushes: 0, filesWritten: 0, errors: 0, lastError: "" };
  private readonly trees: ModelledTree[];
  private readonly clock: () => number;
  private readonly bootId: string;
  private timers: NodeJS.Timeout[] = [];

  private constructor(
    private readonly options: TreeWriterOptions,
    private readonly counters: EnergyCounters,
  ) {
    this.clock = options.clock ?? (() => Date.now() / 1000);
    this.bootId = options.bootId ?? currentBootId();
    this.trees = options.layouts.map((layout) =>
      layout === "powercap" ? createPowercapTree(options.root) : createHwmonTree(options.root),
    );
  }

  /** Restores the counters (tree-state.ts, restore-counters.ts), creates the tree and writes it once. */
  static open(options: TreeWriterOptions): TreeWriter {
    const clock = options.clock ?? (() => Date.now() / 1000);
    const bootId = options.bootId ?? currentBootId();
    const counters = restoreCounters(readTreeState(options.statePath), {
      root: options.root,
      zones: options.zones,
      maxEnergyRangeUj: options.maxEnergyRangeUj,
      nowSeconds: clock(),
      bootId,
      maxDowntimeSeconds: options.maxDowntimeSeconds ?? 600,
    });
    const writer = new TreeWriter({ ...options, clock, bootId }, counters);
    mkdirSync(options.root, { recursive: true });
    mkdirSync(dirname(options.statePath), { recursive: true });
    for (const tree of writer.trees) tree.create(counters);
    writer.flush();
    writer.persist();
    return writer;
  }

  get zones(): readonly string[] {
    return this.counters.zones;
  }

  /** The zone's watts now (what the files advance at). */
  watts(zone: number): number {
    return this.counters.currentWatts(zone);
  }

  /** The modelled watts from now on (one per zone, zone order). */
  setWatts(watts: ArrayLike<number>): void {
    this.counters.setWatts(watts, this.clock());
  }

  /** Advances the counters to now and rewrites what changed; a failed write is counted, not thrown. */
  flush(): void {
    this.counters.advanceTo(this.clock());
    try {
      for (const tree of this.trees) this.stats.filesWritten += tree.write(this.counters);
      this.stats.flushes++;
    } catch (error) {
      this.stats.errors++;
      this.stats.lastError = (error as Error).message;
    }
  }

  /** Saves the counters (written before a restart; see restore-counters.ts for what a crash loses). */
  persist(): void {
    try {
      writeTreeState(this.options.statePath, { ...this.counters.state(), bootId: this.bootId });
    } catch (error) {
      this.stats.errors++;
      this.stats.lastError = (error as Error).message;
    }
  }

  /** Flushes every `updateMs` and persists every `persistMs` until close. */
  start(updateMs: number, persistMs: number): void {
    this.timers.push(
      setInterval(() => this.flush(), updateMs),
      setInterval(() => this.persist(), persistMs),
    );
  }

  /** Stops the timers, brings the files up to now and saves the counters. */
  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.flush();
    this.persist();
  }
}
