// Upgrades and backups (issue 33): a model store written before stores carried a format version
// (test/fixtures/model-store/layout-0) is served unchanged by this registry; a store of a newer format is
// refused; `kepler-model models backup` -> wipe -> `models restore` gives byte-identical models, for a local
// folder and for an S3 store on a real Ceph radosgw, and a damaged backup is refused before anything is written.
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createZip, readZip } from "../../services/models/index.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { openStorage } from "../../services/registry/storage/backends.js";
import { STORE_FORMAT_FILE, STORE_FORMAT_VERSION } from "../../services/registry/storage/store-format.js";
import { REPO_ROOT } from "../support/child-process.js";
import { RADOSGW_TOOLS, type RadosgwInstance } from "../support/radosgw.js";
import { runCliCaptured } from "../support/run-cli.js";
import { needs } from "../support/system-tools.js";
import { startRadosgwWithBucket } from "../support/radosgw-bucket.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/model-store/layout-0");

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function tempFolder(name: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `kepler-${name}-`));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

/** Every file under `folder`: relative path -> SHA-256. */
async function digests(folder: string): Promise<Map<string, string>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = new Map<string, string>();
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    files.set(
      relative(folder, path).split(sep).join("/"),
      createHash("sha256")
        .update(await readFile(path))
        .digest("hex"),
    );
  }
  return files;
}

/** The models of the fixture: their zip and weight-sibling digests (what "byte-identical models" compares). */
function modelFiles(files: Map<string, string>): Map<string, string> {
  // <pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>.zip|.json, four folders deep.
  return new Map([...files].filter(([path]) => /^[^/]+\/[^/]+\/(AbsPower|DynPower)\/[^/]+\/[^/]+\.(zip|json)$/.test(path)));
}

async function servedArchive(address: string, path: string): Promise<string> {
  const [pipelineName, energySource, outputType, featureGroup, file] = path.split("/") as [
    string,
    string,
    string,
    string,
    string,
  ];
  const registry = createRegistryClient(address);
  try {
    const chunks: Uint8Array[] = [];
    const location = {
      pipelineName,
      energySource,
      outputType: outputType === "AbsPower" ? OutputType.OUTPUT_TYPE_ABS_POWER : OutputType.OUTPUT_TYPE_DYN_POWER,
      featureGroup,
      modelName: file.replace(/\.zip$/, ""),
    };
    for await (const message of registry.client.getModelArchive({ location })) chunks.push(message.archiveChunk);
    return createHash("sha256").update(Buffer.concat(chunks)).digest("hex");
  } finally {
    registry.close();
  }
}

async function serve(modelPath: string) {
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  cleanups.push(() => handle.close());
  return handle;
}

const fixtureFiles = await digests(FIXTURE);
const fixtureModels = modelFiles(fixtureFiles);

describe("a store written by the previous layout (format 0, no store-format.json)", () => {
  it("is served unchanged: every file byte-identical, every model archive served as stored, the format stamped", async () => {
    expect(fixtureFiles.has(STORE_FORMAT_FILE)).toBe(false);
    expect([...fixtureModels.keys()].filter((p) => p.endsWith(".zip"))).toHaveLength(3);
    const store = await tempFolder("store-upgrade");
    await cp(FIXTURE, store, { recursive: true });
    const registry = await serve(store);
    for (const [path, digest] of fixtureModels)
      if (path.endsWith(".zip")) expect(await servedArchive(registry.address, path), path).toBe(digest);
    const after = await digests(store);
    const { [STORE_FORMAT_FILE]: stamped, ...rest } = Object.fromEntries(after);
    expect(rest).toEqual(Object.fromEntries(fixtureFiles));
    expect(stamped).toBeDefined();
    expect(JSON.parse(await readFile(join(store, STORE_FORMAT_FILE), "utf8")).format_version).toBe(STORE_FORMAT_VERSION);
  });

  it("a store of a newer format is refused with the way out, and left as it was", async () => {
    const store = await tempFolder("store-newer");
    await cp(FIXTURE, store, { recursive: true });
    await writeFile(join(store, STORE_FORMAT_FILE), `{"format_version": ${STORE_FORMAT_VERSION + 1}}\n`);
    await expect(serve(store)).rejects.toThrow(
      `${store} holds a model store of format ${STORE_FORMAT_VERSION + 1}, newer than kepler-model `,
    );
    const cli = await runCliCaptured(["models", "backup", join(store, "..", "never.zip"), "--model-path", store]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`holds a model store of format ${STORE_FORMAT_VERSION + 1}`);
    const { [STORE_FORMAT_FILE]: _marker, ...rest } = Object.fromEntries(await digests(store));
    expect(rest).toEqual(Object.fromEntries(fixtureFiles));
  });
});

describe("kepler-model models backup -> wipe -> restore, local folder", () => {
  it("gives byte-identical models and pipeline files, and the registry serves them", async () => {
    const work = await tempFolder("backup-local");
    const store = join(work, "models");
    await cp(FIXTURE, store, { recursive: true });
    const backupFile = join(work, "store-backup.zip");
    const backup = await runCliCaptured(["models", "backup", backupFile, "--model-path", store]);
    expect(backup.stderr).toBe("");
    expect(backup.stdout).toMatch(/^Backed up .* to .*store-backup\.zip: 3 models, 4 pipeline files, \d+ bytes\.\n$/);
    await rm(store, { recursive: true, force: true });
    const restore = await runCliCaptured(["models", "restore", backupFile, "--model-path", store]);
    expect(restore.stderr).toBe("");
    expect(restore.stdout).toContain("3 models, 4 pipeline files");
    const restored = await digests(store);
    expect(Object.fromEntries(modelFiles(restored))).toEqual(Object.fromEntries(fixtureModels));
    // The whole store: pipeline files, model tables and the unpacked folders too, plus the format stamp.
    const { [STORE_FORMAT_FILE]: stamp, ...restoredFiles } = Object.fromEntries(restored);
    expect(restoredFiles).toEqual(Object.fromEntries(fixtureFiles));
    expect(stamp).toBeDefined();
    const registry = await serve(store);
    for (const [path, digest] of fixtureModels)
      if (path.endsWith(".zip")) expect(await servedArchive(registry.address, path), path).toBe(digest);
  });

  it("refuses a damaged backup before writing anything, and a store that is not empty", async () => {
    const work = await tempFolder("backup-damaged");
    const store = join(work, "models");
    await cp(FIXTURE, store, { recursive: true });
    const backupFile = join(work, "b.zip");
    expect((await runCliCaptured(["models", "backup", backupFile, "--model-path", store])).code).toBe(0);
    const notEmpty = await runCliCaptured(["models", "restore", backupFile, "--model-path", store]);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain("is not empty (1 pipelines, 3 models): restore into an empty store");
    // One model zip's last byte changed inside an otherwise valid zip (its CRC recomputed): only the
    // manifest's SHA-256 can tell.
    const entries = readZip(await readFile(backupFile));
    const victim = entries.find((e) => e.name.endsWith("SGDRegressorTrainer_0.zip"))!;
    victim.data = Buffer.from(victim.data);
    victim.data[victim.data.length - 1]! ^= 0xff;
    await writeFile(backupFile, createZip(entries));
    const empty = join(work, "empty");
    const damaged = await runCliCaptured(["models", "restore", backupFile, "--model-path", empty]);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toBe(
      `kepler-model models: ${backupFile}: ${victim.name}: SHA-256 differs from backup-manifest.json (damaged backup)\n`,
    );
    expect([...(await digests(empty)).keys()]).toEqual([]);
  });
});

describe("kepler-model models backup -> wipe -> restore, S3 store on radosgw", needs(...RADOSGW_TOOLS), () => {
  const BUCKET = "kepler-backup";
  let rgw: RadosgwInstance;
  beforeAll(async () => {
    rgw = await startRadosgwWithBucket(BUCKET);
  }, 180_000);
  afterAll(async () => {
    await rgw?.stop();
  });

  it("gives byte-identical models (store and backup both in the bucket)", async () => {
    const s3 = ["--s3-endpoint", rgw.endpoint, "--s3-region", "us-east-1"];
    const storeUrl = `s3://${BUCKET}/kepler-model-db`;
    // The fixture store restored into the bucket first (the S3 store to back up), then backed up into the
    // bucket, the store wiped and restored from that backup.
    const work = await tempFolder("backup-s3");
    const seed = join(work, "seed.zip");
    expect((await runCliCaptured(["models", "backup", seed, "--model-path", FIXTURE])).code).toBe(0);
    const seeded = await runCliCaptured(["models", "restore", seed, "--model-store", storeUrl, ...s3]);
    expect(seeded.stderr).toBe("");
    const backupUrl = `s3://${BUCKET}/backups/store.zip`;
    const backup = await runCliCaptured(["models", "backup", backupUrl, "--model-store", storeUrl, ...s3]);
    expect(backup.stderr).toBe("");
    expect(backup.stdout).toContain("3 models, 4 pipeline files");
    const storage = await openStorage(
      storeUrl,
      { s3: { endpoint: rgw.endpoint, region: "us-east-1", requestTimeoutMs: 5000 } },
      "store",
    );
    cleanups.push(() => storage.close());
    for (const { location } of (await storage.list()).models) await storage.removeModel(location);
    for (const { pipelineName, path } of (await storage.list()).pipelineFiles)
      await storage.removePipelineFile(pipelineName, path);
    expect((await storage.list()).models).toEqual([]);
    const restore = await runCliCaptured(["models", "restore", backupUrl, "--model-store", storeUrl, ...s3]);
    expect(restore.stderr).toBe("");
    expect(restore.stdout).toContain("SHA-256 identical");
    // Byte-identical: every model's zip and weight sibling as read back from the bucket vs the fixture's files.
    const listing = await storage.list();
    expect(listing.models).toHaveLength(3);
    for (const { location } of listing.models) {
      const stored = (await storage.readModel(location))!;
      const path = `${location.pipelineName}/${location.energySource}/${location.outputType}/${location.featureGroup}/${location.modelName}`;
      expect(createHash("sha256").update(stored.zip).digest("hex"), path).toBe(fixtureModels.get(`${path}.zip`));
      if (stored.weightJson !== undefined)
        expect(createHash("sha256").update(stored.weightJson).digest("hex"), path).toBe(fixtureModels.get(`${path}.json`));
    }
  }, 120_000);
});
