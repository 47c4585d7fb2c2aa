// Models the storage-contract cases store: plain files of a version, and servable models whose metadata
// carries a held-out error (what the publish gate compares).
import { createLinearWeights, createZip, type ModelLocation, readZip } from "../../services/models/index.js";
import type { ModelFiles } from "../../services/registry/storage/model-storage.js";

export const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const text = (s: string) => new TextEncoder().encode(s);
export const LOCATION: ModelLocation = {
  pipelineName: "std",
  energySource: "acpi",
  outputType: "AbsPower",
  featureGroup: "BPFOnly",
  modelName: "LinearRegressionTrainer_0",
};
export const files = (version: string, weights = true): ModelFiles => ({
  zip: text(`zip ${version}`),
  ...(weights ? { weightJson: `{"weights":"${version}"}` } : {}),
  folderEntries: [{ name: "metadata.json", data: text(`{"version":"${version}"}`) }],
});

/**
 * A servable model: metadata.json in the zip, Kepler's weight.json beside it; with `heldOut`, the metadata
 * carries the trainer's held-out error of its one component (acpi: platform), which the publish gate compares.
 */
export function servableModel(maeWatts: number, heldOut = false): { zip: Uint8Array; weightJson: string } {
  const metadata = { model_name: LOCATION.modelName, features: ["bpf_cpu_time_ms"], mae: maeWatts, output_type: "AbsPower" };
  const held = { row_count: 2, timestamps: [1, 2], mae: maeWatts, components: { platform: { mae: maeWatts, mape: 1 } } };
  return {
    zip: createZip([{ name: "metadata.json", data: text(JSON.stringify(heldOut ? { ...metadata, held_out: held } : metadata)) }]),
    weightJson: JSON.stringify({ platform: createLinearWeights(["bpf_cpu_time_ms"], [1000], [10], 5) }),
  };
}
export const heldOutModel = (maeWatts: number) => servableModel(maeWatts, true);
export const LIFECYCLE = { keptVersions: 3, gate: { marginPercent: 10 } };
export const heldOutMaeOf = (zip: Uint8Array) =>
  (JSON.parse(Buffer.from(readZip(zip)[0]!.data).toString()) as { held_out: { mae: number } }).held_out.mae;
