// `models backup` / `models restore` carry the kept model versions (`<pipeline>/.versions/`, what
// `models rollback` returns to): a registry keeps two earlier versions of a model published three times;
// backup -> wipe -> restore gives the whole store back byte for byte, the kept versions included, and a
// registry on the restored store rolls back to the second version's exact bytes.
import { createHash } from "node:crypto";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";
import { runCliCaptured } from "../support/run-cli.js";

const FEATURES = ["cpu_cycles", "cpu_instructions"];
const MODEL = "std/rapl-sysfs/AbsPower/CounterOnly/LinearRegressionTrainer_0";

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Every file under `folder`: relative path -> SHA-256. */
async function digests(folder: string): Promise<Record<string, string>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries.filter((e) => e.isFile()))
    files[relative(folder, join(entry.parentPath, entry.name)).split(sep).join("/")] = sha256(
      await readFile(join(entry.parentPath, entry.name)),
    );
  return files;
}

// Versions differ only in their intercepts; the same MAE, so no gate would refuse them.
function version(intercept: number): Uint8Array {
  return buildTestArchive({
    pipelineName: "std",
    energySource: "rapl-sysfs",
    featureGroup: "CounterOnly",
    trainerName: "LinearRegressionTrainer",
    nodeType: 0,
    features: FEATURES,
    scale: [1, 1],
    maeWatts: 1,
    model: {
      kind: "linear",
      components: ["package", "core", "uncore", "dram"].map(() => ({ intercept, coefficients: [1e-9, 1e-9] })),
    },
  }).zip;
}

async function serve(modelPath: string) {
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  const client = createRegistryClient(handle.address);
  return {
    handle,
    client,
    async close() {
      client.close();
      await handle.close();
    },
  };
}

async function servedArchive(client: ReturnType<typeof createRegistryClient>): Promise<string> {
  const chunks: Uint8Array[] = [];
  const location = {
    pipelineName: "std",
    energySource: "rapl-sysfs",
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    featureGroup: "CounterOnly",
    modelName: "LinearRegressionTrainer_0",
  };
  for await (const message of client.client.getModelArchive({ location })) chunks.push(message.archiveChunk);
  return sha256(Buffer.concat(chunks));
}

describe("kepler-model models backup -> wipe -> restore with kept versions", () => {
  it("gives the kept versions back byte for byte, and rollback on the restored store returns the previous version", async () => {
    const work = await mkdtemp(join(tmpdir(), "kepler-backup-versions-"));
    cleanups.push(() => rm(work, { recursive: true, force: true }));
    const store = join(work, "models");
    const archives = [version(1), version(2), version(3)];
    const first = await serve(store);
    for (const zip of archives)
      await publishTestArchive(first.client, {
        location: {
          pipelineName: "std",
          energySource: "rapl-sysfs",
          outputType: "AbsPower",
          featureGroup: "CounterOnly",
          modelName: "LinearRegressionTrainer_0",
        },
        zip,
      });
    await first.close();
    const before = await digests(store);
    const kept = Object.entries(before).filter(([path]) => path.startsWith("std/.versions/") && path.endsWith(".zip"));
    // The two earlier versions are kept, with their exact bytes.
    expect(kept.map(([, digest]) => digest).sort()).toEqual([sha256(archives[0]!), sha256(archives[1]!)].sort());

    const backupFile = join(work, "backup.zip");
    const backup = await runCliCaptured(["models", "backup", backupFile, "--model-path", store]);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    await rm(store, { recursive: true, force: true });
    const restore = await runCliCaptured(["models", "restore", backupFile, "--model-path", store]);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(await digests(store)).toEqual(before);

    const restored = await serve(store);
    cleanups.push(() => restored.close());
    expect(await servedArchive(restored.client)).toBe(sha256(archives[2]!));
    const rollback = await runCliCaptured(["models", "rollback", MODEL, "--registry-address", restored.handle.address]);
    expect(rollback.stderr).toBe("");
    expect(rollback.stdout).toMatch(/; 1 earlier versions kept\n$/);
    expect(await servedArchive(restored.client)).toBe(sha256(archives[1]!));
  }, 60_000);
});
