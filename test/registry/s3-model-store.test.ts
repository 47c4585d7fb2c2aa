// The shared model store over a real S3 server (Ceph radosgw from Debian, test/support/radosgw.ts):
// registries over one bucket see each other's publishes and stream them on WatchModels, an estimator
// behind one replica serves what another published, a publish killed midway is never visible, and an
// unreachable bucket answers UNAVAILABLE naming the store until it is back.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { ClientError, Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { startEstimator } from "../../services/estimator/main.js";
import { ModelEventKind } from "../../services/generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { metricsRegistry } from "../../services/kit/observe/metrics.js";
import { zipFolderTree } from "../../services/models/index.js";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { buildTestArchive, publishTestArchive, type TestModelSpec } from "../support/model-archives.js";
import { spawnNode } from "../support/child-process.js";
import { runCliCaptured } from "../support/run-cli.js";
import { readTektonResources, runStepScript, taskParams } from "../deploy/support/tekton-script.js";
import { RADOSGW_TOOLS, type RadosgwInstance, startRadosgw } from "../support/radosgw.js";
import { needs, skipWithout } from "../support/system-tools.js";

const BUCKET = "models";
const STORE = `s3://${BUCKET}/kepler-model-db`;
const POLL_MS = 200;
const FEATURES = ["bpf_cpu_time_ms"];

let rgw: RadosgwInstance;
let bucket: ObjectBucket;
const dirs: string[] = [];
const handles: ServerHandle[] = [];

function linear(trainerName: string, intercept: number, pipelineName = "shared"): TestModelSpec {
  return {
    pipelineName,
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName,
    nodeType: 0,
    features: FEATURES,
    scale: [1000],
    maeWatts: 2,
    // package, core, uncore, dram
    model: { kind: "linear", components: [0, 1, 2, 3].map((i) => ({ intercept: intercept + i, coefficients: [10] })) },
    withWeights: true,
  };
}

async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "s3-store-"));
  dirs.push(dir);
  return dir;
}

async function startReplica(options: { pollMs?: number } = {}): Promise<ServerHandle> {
  const handle = await startRegistry(
    {
      host: "127.0.0.1",
      port: 0,
      modelPath: await scratchDir(),
      rescanIntervalMs: 0,
      sourcePipelines: [],
      modelStore: STORE,
      modelStorePollMs: options.pollMs ?? POLL_MS,
      s3Endpoint: rgw.endpoint,
      s3Region: "us-east-1",
      s3TimeoutMs: 3000,
    },
    { logger: silentLogger() },
  );
  handles.push(handle);
  return handle;
}

async function startLocalRegistry(): Promise<ServerHandle> {
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: await scratchDir(), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  handles.push(handle);
  return handle;
}

// A pipeline folder as `models export` writes it: top-level files and `<source>/<type>/<group>/<model>.zip`.
async function writePipelineFolder(folder: string, pipelineName: string): Promise<void> {
  const archive = buildTestArchive(linear("LinearRegressionTrainer", 40, pipelineName));
  const group = join(folder, "rapl-sysfs", "AbsPower", "BPFOnly");
  await mkdir(group, { recursive: true });
  await writeFile(join(group, "LinearRegressionTrainer_0.zip"), archive.zip);
  await writeFile(
    join(folder, "metadata.json"),
    JSON.stringify({ name: pipelineName, abs_trainers: ["LinearRegressionTrainer"] }),
  );
  await writeFile(join(folder, "node_type_index.json"), "{}");
}

// kepler_model_registry_store_reachable{store=STORE}, as this process's /metrics shows it.
async function reachableGauge(): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric("kepler_model_registry_store_reachable")?.get();
  return metric?.values.find((v) => v.labels.store === STORE)?.value;
}

async function modelNames(address: string, pipelineName = "shared"): Promise<string[]> {
  const registry = createRegistryClient(address);
  try {
    const response = await registry.client.listModels({ pipelineName });
    return response.models.map((m) => m.modelName).sort();
  } finally {
    registry.close();
  }
}

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  if (RADOSGW_TOOLS.some((tool) => !tool.available)) return; // their tests are skipped
  rgw = await startRadosgw();
  process.env.AWS_ACCESS_KEY_ID = rgw.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = rgw.secretAccessKey;
  const admin = new S3Client({
    endpoint: rgw.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
  });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  admin.destroy();
  bucket = new ObjectBucket(createS3Client({ endpoint: rgw.endpoint, region: "us-east-1", requestTimeoutMs: 5000 }), {
    bucket: BUCKET,
    prefix: "kepler-model-db",
  });
}, 180_000);

afterAll(async () => {
  for (const handle of handles.splice(0)) await handle.close();
  bucket?.close();
  await rgw?.stop();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("registries over one S3 bucket", needs(...RADOSGW_TOOLS), () => {
  it("a publish on one replica is streamed by another's WatchModels and served by an estimator behind it", async () => {
    const a = await startReplica();
    const b = await startReplica();
    const watcher = createRegistryClient(b.address);
    const controller = new AbortController();
    const stream = watcher.client.watchModels(
      { pipelineName: "shared", energySource: "", outputType: 0 },
      { signal: controller.signal },
    );
    const events = stream[Symbol.asyncIterator]();
    expect((await events.next()).value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_WATCHING);

    const publisher = createRegistryClient(a.address);
    await publishTestArchive(publisher, buildTestArchive(linear("LinearRegressionTrainer", 10)));
    // In the bucket, in the kepler-model-db layout: zip, weight sibling, unpacked folder, model table.
    const keys = (await bucket.list("shared")).map((e) => e.path);
    const group = "shared/rapl-sysfs/AbsPower/BPFOnly";
    expect(keys).toEqual(
      expect.arrayContaining([
        `${group}/LinearRegressionTrainer_0.zip`,
        `${group}/LinearRegressionTrainer_0.json`,
        `${group}/LinearRegressionTrainer_0/metadata.json`,
        `${group}/LinearRegressionTrainer_0/weight.json`,
        "shared/rapl-sysfs_AbsPower_model_metadata.csv",
      ]),
    );

    const event = await events.next();
    expect(event.value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_PUBLISHED);
    expect(event.value?.metadata?.modelName).toBe("LinearRegressionTrainer_0");
    expect(await modelNames(b.address)).toEqual(["LinearRegressionTrainer_0"]);

    const estimatorHandle = await startEstimator(
      {
        host: "127.0.0.1",
        port: 0,
        registryAddress: b.address,
        machineSpecFile: "",
        estimatorSocket: "",
        registryDeadlineMs: 5000,
      },
      { logger: silentLogger() },
    );
    handles.push(estimatorHandle);
    const estimator = createEstimatorClient(estimatorHandle.address);
    const estimate = async () => {
      const response = await estimator.client.estimate({
        // BPFOnly's features; the model reads the first.
        featureNames: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
        rowCount: 1,
        values: Buffer.from(Float64Array.of(500, 7).buffer),
        valueList: [],
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "rapl-sysfs",
        systemFeatureNames: [],
        systemFeatureValues: [],
        trainerName: "",
        filter: "",
        unavailableFeatureNames: [],
        pipelineName: "shared",
      });
      return response.componentPowers.map((c) => c.powerWatts[0]);
    };
    // package = 10 + 10 * 500 / 1000 = 15 W; core, uncore, dram one watt more each.
    expect(await estimate()).toEqual([15, 16, 17, 18]);

    // A replacement published on A reaches B's estimator.
    await publishTestArchive(publisher, buildTestArchive(linear("LinearRegressionTrainer", 30)));
    const replaced = await events.next();
    expect(replaced.value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_PUBLISHED);
    expect(await eventually(estimate, (watts) => watts[0] === 35)).toEqual([35, 36, 37, 38]);

    // A model deleted from the bucket (by any writer) is removed from B and announced.
    await bucket.delete([`${group}/LinearRegressionTrainer_0.zip`]);
    const removed = await events.next();
    expect(removed.value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_REMOVED);
    expect(await modelNames(b.address)).toEqual([]);
    controller.abort();
    estimator.close();
    publisher.close();
    watcher.close();
  });

  it("a new replica with an empty cache serves every model of the bucket from its start", async () => {
    const a = await startReplica();
    const publisher = createRegistryClient(a.address);
    for (const [name, intercept] of [
      ["LinearRegressionTrainer", 10],
      ["SGDRegressorTrainer", 11],
    ] as const)
      await publishTestArchive(publisher, buildTestArchive(linear(name, intercept, "restart")));
    publisher.close();
    const c = await startReplica({ pollMs: 0 });
    expect(await modelNames(c.address, "restart")).toEqual(["LinearRegressionTrainer_0", "SGDRegressorTrainer_0"]);
  });

  it("a publish killed after its files but before its zip leaves no visible model, and the next publish works", async () => {
    const b = await startReplica();
    const dir = await scratchDir();
    const archive = buildTestArchive(linear("SVRRegressorTrainer", 5, "killed"));
    await writeFile(join(dir, "location.json"), JSON.stringify(archive.location));
    await writeFile(join(dir, "model.zip"), archive.zip);
    const child = spawnNode([
      "test/support/bucket-publish-child.ts",
      join(dir, "cache"),
      STORE,
      rgw.endpoint,
      join(dir, "location.json"),
      join(dir, "model.zip"),
      "store-staged",
    ]);
    await child.waitForOutput(/at store-staged/, 60_000);
    child.child.kill("SIGKILL");
    await child.exited;
    const group = "killed/rapl-sysfs/AbsPower/BPFOnly";
    const keys = (await bucket.list("killed")).map((e) => e.path);
    // The files went up, the zip did not: no reader counts the model.
    expect(keys).toContain(`${group}/SVRRegressorTrainer_0/metadata.json`);
    expect(keys).not.toContain(`${group}/SVRRegressorTrainer_0.zip`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS * 5));
    expect(await modelNames(b.address, "killed")).toEqual([]);
    const fresh = await startReplica({ pollMs: 0 });
    expect(await modelNames(fresh.address, "killed")).toEqual([]);

    const publisher = createRegistryClient(fresh.address);
    await publishTestArchive(publisher, archive);
    publisher.close();
    expect(
      await eventually(
        () => modelNames(b.address, "killed"),
        (names) => names.length === 1,
      ),
    ).toEqual(["SVRRegressorTrainer_0"]);
    const served = await bucket.get(`${group}/SVRRegressorTrainer_0.zip`);
    expect(served?.equals(Buffer.from(archive.zip))).toBe(true);
  });

  it("an unreachable bucket answers UNAVAILABLE naming the store, cached models stay served, and it recovers", async () => {
    const a = await startReplica();
    const b = await startReplica();
    const publisher = createRegistryClient(a.address);
    await publishTestArchive(publisher, buildTestArchive(linear("LinearRegressionTrainer", 10, "outage")));
    await eventually(
      () => modelNames(b.address, "outage"),
      (names) => names.length === 1,
    );

    await rgw.pause();
    try {
      const error = await publishTestArchive(publisher, buildTestArchive(linear("SGDRegressorTrainer", 12, "outage"))).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ClientError);
      expect((error as ClientError).code).toBe(Status.UNAVAILABLE);
      expect((error as ClientError).details).toMatch(
        /^model store s3:\/\/models\/kepler-model-db: writing .* failed: .*ECONNREFUSED/,
      );
      // Nothing half-done: A does not serve what the store did not take; both keep serving the cache.
      expect(await modelNames(a.address, "outage")).toEqual(["LinearRegressionTrainer_0"]);
      expect(await modelNames(b.address, "outage")).toEqual(["LinearRegressionTrainer_0"]);
      // The failed polls show on /metrics.
      expect(await eventually(reachableGauge, (value) => value === 0)).toBe(0);
    } finally {
      await rgw.resume();
    }
    await publishTestArchive(publisher, buildTestArchive(linear("SGDRegressorTrainer", 12, "outage")));
    publisher.close();
    expect(
      await eventually(
        () => modelNames(b.address, "outage"),
        (names) => names.length === 2,
      ),
    ).toEqual(["LinearRegressionTrainer_0", "SGDRegressorTrainer_0"]);
  }, 60_000);
});

describe("moving pipelines through buckets and URLs", () => {
  it("the Tekton s3-push task uploads data/ and models/ with our CLI, and `models import s3://` serves the pushed pipeline", async (context) => {
    skipWithout(context, ...RADOSGW_TOOLS);
    const dir = await scratchDir();
    const workspaceDir = join(dir, "workspace");
    await mkdir(join(workspaceDir, "data"), { recursive: true });
    await writeFile(join(workspaceDir, "data", "idle.json"), '{"status":"success"}');
    await writePipelineFolder(join(workspaceDir, "models", "pushed"), "pushed");
    const task = readTektonResources().find((r) => r.kind === "Task" && r.metadata.name === "kepler-model-s3-push");
    if (task === undefined) throw new Error("no s3-push Task");
    const { stdout } = await runStepScript(task, "push", {
      params: taskParams(task, { COS_SECRET_NAME: "model-bucket", MACHINE_ID: "machine-1" }),
      resultsDir: join(dir, "results"),
      workspaceDir,
      scratchDir: dir,
      grpcurlOutput: "",
      // The secret's keys, as docs/deploy.md creates it (endpointURL for a non-AWS server).
      secrets: {
        accessKeyID: rgw.accessKeyId,
        accessSecret: rgw.secretAccessKey,
        regionName: "us-east-1",
        bucketName: BUCKET,
        endpointURL: rgw.endpoint,
      },
    });
    expect(stdout).toContain("pushed 1 files from data to s3://models/machine-1/data");
    expect(stdout).toContain("pushed 3 files from models to s3://models/machine-1/models");
    const root = new ObjectBucket(createS3Client({ endpoint: rgw.endpoint, region: "us-east-1", requestTimeoutMs: 5000 }), {
      bucket: BUCKET,
      prefix: "machine-1",
    });
    expect((await root.list()).map((e) => e.path)).toEqual([
      "data/idle.json",
      "models/pushed/metadata.json",
      "models/pushed/node_type_index.json",
      "models/pushed/rapl-sysfs/AbsPower/BPFOnly/LinearRegressionTrainer_0.zip",
    ]);
    root.close();

    const registry = await startLocalRegistry();
    const imported = await runCliCaptured([
      "models",
      "import",
      `s3://${BUCKET}/machine-1/models/pushed`,
      "--s3-endpoint",
      rgw.endpoint,
      "--registry-address",
      registry.address,
    ]);
    expect(imported.stderr).toBe("");
    expect(imported.stdout).toBe("imported pipeline pushed: 1 models served, 0 skipped\n");
    expect(imported.code).toBe(0);
    expect(await modelNames(registry.address, "pushed")).toEqual(["LinearRegressionTrainer_0"]);
  });

  it("`models import https://.../<pipeline>.zip` imports a published pipeline zip, named after the file", async () => {
    const dir = await scratchDir();
    await writePipelineFolder(join(dir, "mirror"), "mirror");
    const zip = await zipFolderTree(join(dir, "mirror"));
    const server = createServer((request, response) => {
      if (request.url === "/kepler-model-db/mirror.zip") response.writeHead(200).end(zip);
      else response.writeHead(404).end("not found");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const registry = await startLocalRegistry();
      const address = ["--registry-address", registry.address];
      const ok = await runCliCaptured(["models", "import", `http://127.0.0.1:${port}/kepler-model-db/mirror.zip`, ...address]);
      expect(ok.stdout).toBe("imported pipeline mirror: 1 models served, 0 skipped\n");
      expect(await modelNames(registry.address, "mirror")).toEqual(["LinearRegressionTrainer_0"]);
      const missing = await runCliCaptured(["models", "import", `http://127.0.0.1:${port}/nothing.zip`, ...address]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(
        `kepler-model models: could not download http://127.0.0.1:${port}/nothing.zip: HTTP 404 Not Found\n`,
      );
    } finally {
      server.close();
    }
  });

  it("`models import s3://` of an empty prefix says what it looked for", async (context) => {
    skipWithout(context, ...RADOSGW_TOOLS);
    const registry = await startLocalRegistry();
    const run = await runCliCaptured([
      "models",
      "import",
      `s3://${BUCKET}/nowhere/pipeline`,
      "--s3-endpoint",
      rgw.endpoint,
      "--registry-address",
      registry.address,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("kepler-model models: objects under s3://models/nowhere/pipeline not found\n");
  });
});
