// The counters' state on disk, so a restarted exporter continues them: written atomically beside the tree
// (by default in the tree's root, outside class/, where no reader looks), read back at start.
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { writeFileAtomic } from "./atomic-file.js";
import type { EnergyState } from "./energy-counters.js";

/** The persisted state: the counters' state plus the boot it was written in. */
export interface TreeState extends EnergyState {
  /** The Linux boot id (/proc/sys/kernel/random/boot_id) when written; "" when unknown. */
  bootId: string;
}

/** Reads the state file; undefined when absent or unreadable (a first start). */
export function readTreeState(path: string): TreeState | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    const state = JSON.parse(text) as TreeState;
    const ok =
      Array.isArray(state.zones) &&
      Array.isArray(state.totalsJoules) &&
      Array.isArray(state.watts) &&
      state.totalsJoules.length === state.zones.length &&
      state.watts.length === state.zones.length &&
      [...state.totalsJoules, ...state.watts, state.atSeconds].every((v) => typeof v === "number" && Number.isFinite(v));
    return ok ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the state file atomically. */
export function writeTreeState(path: string, state: TreeState): void {
  writeFileAtomic(dirname(path), basename(path), `${JSON.stringify(state)}\n`);
}

/** This boot's id, or "" where the file does not exist. */
export function currentBootId(procRoot = "/"): string {
  try {
    return readFileSync(`${procRoot.replace(/\/$/, "")}/proc/sys/kernel/random/boot_id`, "utf8").trim();
  } catch {
    return "";
  }
}
