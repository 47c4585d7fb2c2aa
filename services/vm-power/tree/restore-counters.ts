// A restarted exporter's counters: the persisted totals, moved up to what the tree's files already show
// (the state is saved less often than the files are written, and a counter must never fall), plus the
// downtime at the last modelled watts, so a reader's interval that spans the restart still sees the
// modelled power. No downtime is added across a reboot (another boot id) or beyond a cap.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EnergyCounters } from "./energy-counters.js";
import { powercapZoneFolders } from "./powercap-tree.js";
import type { TreeState } from "./tree-state.js";

export interface RestoreOptions {
  root: string;
  zones: readonly string[];
  maxEnergyRangeUj: number;
  nowSeconds: number;
  bootId: string;
  maxDowntimeSeconds: number;
}

function counterInTree(root: string, folder: string): number | undefined {
  try {
    const value = Number(readFileSync(join(root, "class/powercap", folder, "energy_uj"), "utf8"));
    return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Counters continuing `state` (see the file comment); fresh counters when there is no state. */
export function restoreCounters(state: TreeState | undefined, options: RestoreOptions): EnergyCounters {
  const { zones, maxEnergyRangeUj: range, nowSeconds } = options;
  if (state === undefined) return new EnergyCounters(zones, range, nowSeconds);
  const totalsJoules = zones.map((zone) => state.totalsJoules[state.zones.indexOf(zone)] ?? 0);
  const watts = zones.map((zone) => state.watts[state.zones.indexOf(zone)] ?? 0);
  const saved = new EnergyCounters(zones, range, state.atSeconds, { totalsJoules, watts });
  let aheadSeconds = 0;
  const folders = zones.includes("package") ? powercapZoneFolders(zones) : [];
  for (const { zone, folder } of folders) {
    const index = zones.indexOf(zone);
    const shown = counterInTree(options.root, folder);
    if (shown === undefined) continue;
    const ahead = (((shown - saved.counterMicrojoules(index)) % range) + range) % range;
    if (ahead === 0 || ahead > range / 2) continue;
    totalsJoules[index]! += ahead / 1e6;
    if (watts[index]! > 0) aheadSeconds = Math.max(aheadSeconds, ahead / 1e6 / watts[index]!);
  }
  const counters = new EnergyCounters(zones, range, nowSeconds, { totalsJoules, watts });
  if (state.bootId === options.bootId) {
    const downtime = nowSeconds - state.atSeconds - aheadSeconds;
    counters.addDowntime(Math.min(Math.max(downtime, 0), options.maxDowntimeSeconds));
  }
  return counters;
}
