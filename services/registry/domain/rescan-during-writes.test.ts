// Domain test: a rescan that lists the storage while the catalogue publishes or removes a model keeps the
// catalogue's own write (a publish ending mid-scan used to vanish until the next rescan, a removal to
// come back): the storage's listing is held back until the write is done.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { buildTestArchive } from "../../../test/support/model-archives.js";
import { model } from "../../../test/support/seeded-registry.js";
import { LocalFolderStorage } from "../storage/local/local-folder-storage.js";
import { ModelCatalogue } from "./model-catalogue.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rescan-race-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A catalogue whose storage listing, after `hold()`, is taken at once (`listed`) but returned on `release()`. */
async function catalogueWithHeldListing() {
  const storage = await LocalFolderStorage.open(dir, quiet);
  const list = storage.list.bind(storage);
  let held: Promise<void> | undefined;
  let release = () => {};
  let signalListed = () => {};
  storage.list = async () => {
    const listing = await list();
    signalListed();
    await held;
    return listing;
  };
  const catalogue = await ModelCatalogue.open(storage, { logger: quiet });
  const hold = (): Promise<void> => {
    held = new Promise<void>((resolve) => (release = resolve));
    return new Promise<void>((resolve) => (signalListed = resolve));
  };
  return { catalogue, hold, release: () => release() };
}

const names = (catalogue: ModelCatalogue) => catalogue.list().map((m) => m.location.modelName);

it("a model published while a rescan lists the storage stays in the catalogue", async () => {
  const { catalogue, hold, release } = await catalogueWithHeldListing();
  const listed = hold();
  const rescan = catalogue.rescan();
  await listed;
  await catalogue.publish(buildTestArchive(model("LinearRegressionTrainer", 0, 5)));
  expect(names(catalogue)).toEqual(["LinearRegressionTrainer_0"]);
  release();
  await rescan;
  expect(names(catalogue)).toEqual(["LinearRegressionTrainer_0"]);
  expect(catalogue.pipelines().map((p) => [p.name, p.modelCount])).toEqual([["std", 1]]);
  catalogue.close();
});

it("a model removed while a rescan lists the storage stays removed", async () => {
  const { catalogue, hold, release } = await catalogueWithHeldListing();
  const archive = buildTestArchive(model("SGDRegressorTrainer", 0, 6));
  await catalogue.publish(archive);
  const listed = hold();
  const rescan = catalogue.rescan();
  await listed;
  await catalogue.remove(archive.location);
  release();
  await rescan;
  expect(names(catalogue)).toEqual([]);
  catalogue.close();
});
