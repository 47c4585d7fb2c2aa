// A sysfs tree an unchanged Kepler 0.10+ reads its CPU power from (its `host.sysfs` pointed at the tree's
// root): a powercap (RAPL) layout with energy counters, or a hwmon layout with power readings.
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EnergyCounters } from "./energy-counters.js";

/** One layout of the tree. */
export interface ModelledTree {
  readonly layout: "powercap" | "hwmon";
  /** Creates the folders, links and the files that never change; safe to call over an existing tree. */
  create(counters: EnergyCounters): void;
  /** Writes the files that follow the counters (each atomically, only when its text changed). */
  write(counters: EnergyCounters): number;
}

/**
 * Makes `root/<classPath>` a relative link to `root/<devicePath>` (Linux's class folders are links into
 * devices/), replacing whatever else is there; relative, so the tree can be mounted anywhere.
 */
export function linkClassEntry(root: string, classPath: string, devicePath: string): void {
  const link = join(root, classPath);
  mkdirSync(dirname(link), { recursive: true });
  const depth = classPath.split("/").length - 1;
  const target = `${"../".repeat(depth)}${devicePath}`;
  try {
    if (lstatSync(link).isSymbolicLink() && readlinkSync(link) === target) return;
    rmSync(link, { recursive: true, force: true });
  } catch {
    // absent: create it below
  }
  symlinkSync(target, link);
}
