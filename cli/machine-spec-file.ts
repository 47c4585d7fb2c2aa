// The reference's `machine_spec/<id>.json`: the spec of the node a recording was made on, saved by
// `query --id` next to the recording so `pipeline run --machine-id` indexes the right node type.
import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DiscoveredMachineSpec } from "../services/node-types/discover-machine-spec.js";

/** `<folder of file>/machine_spec/<id>.json`. */
export function machineSpecPathBeside(file: string, machineId: string): string {
  return join(dirname(file), "machine_spec", `${machineId}.json`);
}

/** Writes the spec with the reference's keys (memory in GiB, frequency in MHz). */
export async function writeMachineSpecFile(path: string, spec: DiscoveredMachineSpec): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const json = {
    processor: spec.processor,
    vendor: spec.vendor,
    cores: spec.cores,
    chips: spec.chips,
    memory: spec.memory,
    frequency: spec.frequency ?? 0,
    threads_per_core: spec.threadsPerCore,
  };
  await writeFile(path, `${JSON.stringify(json, null, 2)}\n`);
}

/** True when the file exists (for picking up a spec beside an input). */
export async function fileExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
