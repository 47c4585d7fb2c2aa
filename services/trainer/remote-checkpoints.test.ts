// Continued training from a remote model store (reference seed 000, step 1): a trainer whose local
// folder is empty continues SGD from the model published in the registry (GetModelArchive), or under a
// model-DB URL (http and file:). Proof: SGD's update count t goes on from the published model's
// (t = t0 + 150 rows x epochs) and the fit keeps the published MaxAbs scale although every feature doubled.
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { doubledFeatures, goldenTable } from "../../test/fixtures/trainer/fixtures.js";
import { goldenTrainOptions, startLocalRegistry, trainRequests, trainResults } from "../../test/support/train-calls.js";
import type { DataTable } from "../domain/data-table.js";
import { TrainOutcome } from "../generated/kepler/model/v1/trainer_service.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { silentLogger } from "../kit/observe/logger.js";
import { type ModelFolder, readModelFolder } from "../models/index.js";
import { type TrainerConfig, readTrainerConfig } from "./config.js";
import { startTrainer } from "./main.js";

const PIPELINE = "continued";
const GROUP = join(PIPELINE, "acpi", "AbsPower", "CounterOnly");
const ROWS_PER_EPOCH = 150; // training rows of the acpi golden split

const folders: string[] = [];
const servers: ServerHandle[] = [];
let registry: ServerHandle;
let registryPath: string;
let http: Server;
let httpUrl: string;

async function folder(prefix: string): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  folders.push(path);
  return path;
}

async function trainer(settings: Partial<TrainerConfig>): Promise<ServerHandle> {
  const handle = await startTrainer(
    { ...readTrainerConfig({}), host: "127.0.0.1", port: 0, ...settings },
    { logger: silentLogger() },
  );
  servers.push(handle);
  return handle;
}

async function train(handle: ServerHandle, table: DataTable, continueFromCheckpoint: boolean): Promise<TrainOutcome[]> {
  const options = { ...goldenTrainOptions("acpi", ["SGDRegressorTrainer"], PIPELINE), continueFromCheckpoint };
  return (await trainResults(handle.address, trainRequests(options, table))).map((result) => result.outcome);
}

function sgd(model: ModelFolder): { t: number; epochs: number } {
  const platform = model.components.platform;
  if (platform?.kind !== "sgd") throw new Error("no SGD platform model");
  return { t: platform.t, epochs: platform.epochs };
}

let published: ModelFolder;

beforeAll(async () => {
  registryPath = await folder("remote-ckpt-registry-");
  registry = await startLocalRegistry(registryPath);
  // A first trainer publishes SGD through the registry.
  const first = await trainer({ modelPath: await folder("remote-ckpt-first-"), registryAddress: registry.address });
  expect(await train(first, goldenTable("acpi"), false)).toEqual([TrainOutcome.TRAIN_OUTCOME_SUCCEEDED]);
  published = await readModelFolder(join(registryPath, GROUP, "SGDRegressorTrainer_0"));
  // The registry's folder served read-only over HTTP: a model DB in the reference's URL layout.
  http = createServer((request, response) => {
    const path = join(registryPath, decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
    stat(path).then(
      (info) => {
        if (!info.isFile()) throw new Error("not a file");
        response.writeHead(200, { "content-type": "application/zip" });
        createReadStream(path).pipe(response);
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  httpUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  for (const handle of servers) await handle.close();
  await registry?.close();
  await new Promise((resolve) => http?.close(resolve));
  for (const path of folders) await rm(path, { recursive: true, force: true });
});

describe("continued training from a remote model store", () => {
  it("the published SGD model is a fresh fit: t = 1 + 150 x epochs", () => {
    const { t, epochs } = sgd(published);
    expect(t).toBe(1 + ROWS_PER_EPOCH * epochs);
  });

  it("a trainer with an empty folder continues from the registry's published model", async () => {
    const local = await folder("remote-ckpt-second-");
    const second = await trainer({ modelPath: local, registryAddress: registry.address });
    expect(await train(second, doubledFeatures(goldenTable("acpi")), true)).toEqual([TrainOutcome.TRAIN_OUTCOME_SUCCEEDED]);
    const continued = await readModelFolder(join(registryPath, GROUP, "SGDRegressorTrainer_0"));
    expect(sgd(continued).t).toBe(sgd(published).t + ROWS_PER_EPOCH * sgd(continued).epochs);
    expect(continued.scaler.scale).toEqual(published.scaler.scale);
  });

  for (const [store, url] of [
    ["an http model-DB URL", () => httpUrl],
    ["a file: model-DB URL", () => pathToFileURL(registryPath).href],
  ] as const) {
    it(`a trainer without a registry continues from ${store}; without --continue it starts over`, async () => {
      const before = await readModelFolder(join(registryPath, GROUP, "SGDRegressorTrainer_0"));
      const local = await folder("remote-ckpt-url-");
      const third = await trainer({ modelPath: local, registryAddress: "", checkpointUrl: url() });
      expect(await train(third, doubledFeatures(goldenTable("acpi")), true)).toEqual([TrainOutcome.TRAIN_OUTCOME_SUCCEEDED]);
      const continued = await readModelFolder(join(local, GROUP, "SGDRegressorTrainer_0"));
      expect(sgd(continued).t).toBe(sgd(before).t + ROWS_PER_EPOCH * sgd(continued).epochs);
      expect(continued.scaler.scale).toEqual(before.scaler.scale);

      const freshLocal = await folder("remote-ckpt-fresh-");
      const fresh = await trainer({ modelPath: freshLocal, registryAddress: "", checkpointUrl: url() });
      expect(await train(fresh, doubledFeatures(goldenTable("acpi")), false)).toEqual([TrainOutcome.TRAIN_OUTCOME_SUCCEEDED]);
      const restarted = await readModelFolder(join(freshLocal, GROUP, "SGDRegressorTrainer_0"));
      expect(sgd(restarted).t).toBe(1 + ROWS_PER_EPOCH * sgd(restarted).epochs);
      expect(restarted.scaler.scale).toEqual(before.scaler.scale.map((scale) => 2 * scale));
    });
  }

  it("a model the store does not have starts a fresh fit", async () => {
    const local = await folder("remote-ckpt-missing-");
    const lone = await trainer({ modelPath: local, registryAddress: "", checkpointUrl: `${httpUrl}/no-such-db` });
    expect(await train(lone, goldenTable("acpi"), true)).toEqual([TrainOutcome.TRAIN_OUTCOME_SUCCEEDED]);
    const model = await readModelFolder(join(local, GROUP, "SGDRegressorTrainer_0"));
    expect(sgd(model).t).toBe(1 + ROWS_PER_EPOCH * sgd(model).epochs);
  });
});
