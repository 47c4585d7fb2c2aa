// A re-publish into an S3 model store killed at many moments (SIGKILL of a real publishing process,
// against Ceph radosgw): the objects readers of the kepler-model-db layout fetch (`<model>.zip`, the
// weight sibling `<model>.json`, the unpacked `<model>/` files) never mix two versions; a registry reads
// one whole version at each moment; and the next registry to list the store completes a committed
// publish, leaving the whole of that version and nothing staged.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ModelCatalogue } from "../../services/registry/domain/model-catalogue.js";
import { SharedModelStore } from "../../services/registry/domain/shared-store.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";
import { S3ModelStorage } from "../../services/registry/storage/s3/s3-model-storage.js";
import { pendingPublishes, STAGING_ROOT } from "../../services/registry/storage/s3/staged-publish.js";
import { type RunningChild, spawnNode } from "../support/child-process.js";
import { writeInputs } from "../support/crash-publish.js";
import { buildTestArchive } from "../support/model-archives.js";
import { RADOSGW_TOOLS } from "../support/radosgw.js";
import { bucket, linear, rgw, scratchDir, STORE, useS3Store } from "../support/s3-store.js";
import { needs } from "../support/system-tools.js";

useS3Store();

const TRIALS = 40;
const BASE = "kills/rapl-sysfs/AbsPower/BPFOnly/LinearRegressionTrainer_0";
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Every layout object of the model, by key: the zip, the sibling, the unpacked files. */
async function layoutObjects(): Promise<Map<string, Buffer>> {
  const keys = [`${BASE}.zip`, `${BASE}.json`, ...(await bucket.list(BASE)).map((e) => e.path)];
  const objects = new Map<string, Buffer>();
  for (const key of keys) {
    const data = await bucket.get(key);
    if (data !== undefined) objects.set(key, data);
  }
  return objects;
}

/** The versions (indexes into `versions`) that every object present belongs to. */
function versionsOf(objects: Map<string, Buffer>, versions: Array<Map<string, Buffer>>): number[] {
  return versions.flatMap((version, index) =>
    [...objects].every(([key, data]) => version.get(key)?.equals(data) === true) ? [index] : [],
  );
}

const sameObjects = (a: Map<string, Buffer>, b: Map<string, Buffer>) =>
  a.size === b.size && [...a].every(([key, data]) => b.get(key)?.equals(data) === true);

describe("a re-publish to S3 killed at any moment", needs(...RADOSGW_TOOLS), () => {
  it(`never leaves the bucket mixed (${TRIALS} SIGKILLs)`, async () => {
    const dir = await scratchDir();
    const archives = [
      buildTestArchive(linear("LinearRegressionTrainer", 10, "kills")),
      buildTestArchive(linear("LinearRegressionTrainer", 30, "kills")),
    ];
    const [locationFile, ...zipFiles] = await writeInputs(dir, archives);
    // Each version's layout objects, as a whole publish leaves them.
    const catalogue = await ModelCatalogue.open(await LocalFolderStorage.open(join(dir, "setup"), quiet), {
      logger: quiet,
      shared: new SharedModelStore(new S3ModelStorage(bucket, 0), quiet),
    });
    const versions: Array<Map<string, Buffer>> = [];
    for (const archive of archives) {
      await catalogue.publish({ location: archive.location, zip: archive.zip });
      versions.push(await layoutObjects());
    }
    // Both versions carry a zip, a weight sibling and unpacked files, and differ in the zip and sibling.
    expect(versions[0]!.has(`${BASE}.json`)).toBe(true);
    expect(versions[0]!.get(`${BASE}.json`)?.equals(versions[1]!.get(`${BASE}.json`)!)).toBe(false);
    expect(versions[0]!.has(`${BASE}/weight.json`)).toBe(true);

    // Where the kills landed: before a commit marker, after it (the layout still old, part-swapped, or
    // all new), or after a whole publish; and how many publishes the children completed.
    const outcomes = { mixed: 0, beforeCommit: 0, committedOld: 0, midSwap: 0, committedNew: 0, afterPublish: 0, publishes: 0 };
    let current = 1;
    const republisher = (trial: number) =>
      spawnNode([
        "test/support/bucket-republish-child.ts",
        join(dir, `cache-${trial}`),
        STORE,
        rgw.endpoint,
        locationFile!,
        join(dir, `first-${trial}`),
        ...zipFiles,
      ]);
    // Each trial's child is started during the previous trial's checks, and waits for a signal to begin:
    // its second of module loading overlaps them instead of adding to every trial.
    let next: RunningChild | undefined = republisher(0);
    try {
      for (let trial = 0; trial < TRIALS; trial++) {
        const child = next!;
        next = undefined;
        await writeFile(join(dir, `first-${trial}`), String(1 - current));
        await child.waitForOutput(/ready/, 60_000);
        child.child.kill("SIGUSR2");
        await child.waitForOutput(/publishing/, 60_000);
        // Spread over several publishes (one takes tens of ms here).
        await new Promise((resolve) => setTimeout(resolve, (trial * 97) % 1500));
        child.child.kill("SIGKILL");
        await child.exited;
        if (trial + 1 < TRIALS) next = republisher(trial + 1);
        outcomes.publishes += (child.output().match(/published/g) ?? []).length;

        // What readers of the layout see now, before any registry touches the store.
        const seen = await layoutObjects();
        const matching = versionsOf(seen, versions);
        if (matching.length === 0) outcomes.mixed++;
        const marker = pendingPublishes(await bucket.list(`${STAGING_ROOT}/${BASE}`)).get(BASE);
        // A registry reads one whole version (the committed one while a marker is there).
        const reader = new S3ModelStorage(bucket, Number.POSITIVE_INFINITY);
        const read = await reader.readModel(archives[0]!.location);
        const readVersion = versions.findIndex((v) => v.get(`${BASE}.zip`)?.equals(read!.zip) === true);
        expect(readVersion).toBeGreaterThanOrEqual(0);
        expect(read?.weightJson).toBe(versions[readVersion]!.get(`${BASE}.json`)?.toString("utf8"));
        const listedBefore = (await reader.list()).models.find((m) => m.location.pipelineName === "kills")?.signature;

        // The next registry to list the store completes a committed publish.
        const repairing = new S3ModelStorage(bucket, 0);
        const listedAfter = (await repairing.list()).models.find((m) => m.location.pipelineName === "kills")?.signature;
        const after = await layoutObjects();
        expect(sameObjects(after, versions[readVersion]!)).toBe(true);
        expect(listedAfter).toBe(listedBefore);
        expect(pendingPublishes(await bucket.list(STAGING_ROOT)).size).toBe(0);
        if (marker !== undefined) {
          const whole = matching.find((v) => sameObjects(seen, versions[v]!));
          if (whole === current) outcomes.committedOld++;
          else if (whole === undefined) outcomes.midSwap++;
          else outcomes.committedNew++;
        } else if (readVersion === current) outcomes.beforeCommit++;
        else outcomes.afterPublish++;
        current = readVersion;
      }
    } finally {
      next?.child.kill("SIGKILL");
    }
    console.info(`s3 publish kills: ${JSON.stringify(outcomes)}`);
    expect(outcomes.mixed).toBe(0);
    // The kills landed on both sides of the commit point, and mid-swap.
    expect(outcomes.midSwap).toBeGreaterThan(0);
    expect(outcomes.beforeCommit + outcomes.afterPublish).toBeGreaterThan(0);
  }, 900_000);
});
