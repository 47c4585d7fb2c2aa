// The hwmon layout (Linux's hwmon sysfs ABI): class/hwmon/hwmon0, a link into devices/virtual/hwmon/,
// with `name` (the chip) and per zone `power<N>_label` (the zone) and `power<N>_input` (microwatts, the
// latest modelled watts). Kepler 0.11.4's experimental hwmon meter names a zone by its cleaned label and
// reads power, not energy (it assumes the reading held for its whole interval).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.js";
import { linkClassEntry, type ModelledTree } from "./modelled-tree.js";

const CHIP_FOLDER = "devices/virtual/hwmon/hwmon0";
/** The chip's `name`: hwmon names have no dashes or spaces. */
export const HWMON_CHIP_NAME = "kepler_model";

/** The hwmon tree under `root` (see the file comment). */
export function createHwmonTree(root: string): ModelledTree {
  const path = join(root, CHIP_FOLDER);
  let written: string[] = [];
  return {
    layout: "hwmon",
    create(counters) {
      mkdirSync(path, { recursive: true });
      writeFileAtomic(path, "name", `${HWMON_CHIP_NAME}\n`);
      counters.zones.forEach((zone, i) => writeFileAtomic(path, `power${i + 1}_label`, `${zone}\n`));
      linkClassEntry(root, "class/hwmon/hwmon0", CHIP_FOLDER);
      written = counters.zones.map(() => "");
    },
    write(counters) {
      let files = 0;
      counters.zones.forEach((_, i) => {
        const watts = counters.currentWatts(i);
        const text = `${watts > 0 ? Math.round(watts * 1e6) : 0}\n`;
        if (written[i] === text) return;
        writeFileAtomic(path, `power${i + 1}_input`, text);
        written[i] = text;
        files++;
      });
      return files;
    },
  };
}
