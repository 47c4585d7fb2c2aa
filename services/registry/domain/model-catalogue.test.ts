// Domain test: models written into MODEL_PATH by another process (services/models' publishModelArchive,
// as `kepler-model train` does) are picked up by a rescan and announced.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { publishModelArchive, readZip } from "../../models/index.js";
import { buildTestArchive } from "../../../test/support/model-archives.js";
import type { ModelEvent } from "./model-events.js";
import { LocalFolderStorage } from "../storage/local/local-folder-storage.js";
import { ModelCatalogue } from "./model-catalogue.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "store-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("a rescan announces models other writers published, changed or removed", async () => {
  const store = await ModelCatalogue.open(await LocalFolderStorage.open(dir, quiet), { logger: quiet });
  const events: ModelEvent[] = [];
  store.events.subscribe((event) => events.push(event));
  const spec = {
    pipelineName: "std",
    energySource: "acpi" as const,
    featureGroup: "BPFOnly",
    trainerName: "SGDRegressorTrainer",
    nodeType: 0,
    features: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
    scale: [1, 1],
    maeWatts: 4,
    model: { kind: "linear" as const, components: [{ intercept: 1, coefficients: [1, 1] }] },
    withWeights: true,
  };
  const archive = buildTestArchive(spec);
  await publishModelArchive(dir, { location: archive.location, files: readZip(archive.zip) });
  await store.rescan();
  expect(events.map((e) => [e.kind, e.model.location.modelName, e.model.format, e.model.maeWatts])).toEqual([
    ["published", "SGDRegressorTrainer_0", "components", 4],
  ]);
  expect(store.pipelineForSource("acpi")).toBe("std");
  await store.rescan();
  expect(events.length).toBe(1);
  await rm(join(dir, "std/acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip"));
  await store.rescan();
  expect(events.map((e) => e.kind)).toEqual(["published", "removed"]);
  expect(store.list()).toEqual([]);
  store.close();
});
