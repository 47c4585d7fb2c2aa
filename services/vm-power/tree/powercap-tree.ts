// The powercap layout as Linux's intel_rapl driver writes it: class/powercap/intel-rapl:0 (`package-0`)
// with sub-zones intel-rapl:0:<n> (`core`, `uncore`, `dram`, in the model's zone order), each a link into
// devices/virtual/powercap/intel-rapl/, holding `name`, `enabled`, `max_energy_range_uj` and `energy_uj`
// (decimal microjoules and a newline). Kepler reads every class/powercap folder that has a `name` file
// (prometheus/procfs sysfs.GetRaplZones), needs `max_energy_range_uj` in each, and strips `-0` from the
// package's name into zone "package" index 0.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.js";
import { linkClassEntry, type ModelledTree } from "./modelled-tree.js";

const CONTROL_TYPE = "devices/virtual/powercap/intel-rapl";

/** The folder (relative to the root) and the name file's text of each zone; `package` first. */
export function powercapZoneFolders(zones: readonly string[]): Array<{ zone: string; folder: string; name: string }> {
  if (!zones.includes("package")) throw new RangeError(`a powercap tree needs the package zone, got ${zones.join(", ")}`);
  const subZones = zones.filter((zone) => zone !== "package");
  return [
    { zone: "package", folder: "intel-rapl:0", name: "package-0" },
    ...subZones.map((zone, n) => ({ zone, folder: `intel-rapl:0:${n}`, name: zone })),
  ];
}

/** The powercap tree under `root` (see the file comment). */
export function createPowercapTree(root: string): ModelledTree {
  let written = new Map<string, string>();
  const deviceFolder = (folder: string) =>
    folder === "intel-rapl:0" ? `${CONTROL_TYPE}/intel-rapl:0` : `${CONTROL_TYPE}/intel-rapl:0/${folder}`;
  let folders: Array<{ index: number; path: string }> = [];
  return {
    layout: "powercap",
    create(counters) {
      mkdirSync(join(root, CONTROL_TYPE), { recursive: true });
      writeFileAtomic(join(root, CONTROL_TYPE), "enabled", "1\n");
      linkClassEntry(root, "class/powercap/intel-rapl", CONTROL_TYPE);
      folders = powercapZoneFolders(counters.zones).map(({ zone, folder, name }) => {
        const path = join(root, deviceFolder(folder));
        mkdirSync(path, { recursive: true });
        writeFileAtomic(path, "name", `${name}\n`);
        writeFileAtomic(path, "enabled", "1\n");
        writeFileAtomic(path, "max_energy_range_uj", `${counters.maxEnergyRangeUj}\n`);
        linkClassEntry(root, `class/powercap/${folder}`, deviceFolder(folder));
        return { index: counters.zones.indexOf(zone), path };
      });
      written = new Map();
    },
    write(counters) {
      let files = 0;
      for (const { index, path } of folders) {
        const text = `${counters.counterMicrojoules(index)}\n`;
        if (written.get(path) === text) continue;
        writeFileAtomic(path, "energy_uj", text);
        written.set(path, text);
        files++;
      }
      return files;
    },
  };
}
