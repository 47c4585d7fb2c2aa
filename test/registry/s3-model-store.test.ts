// The shared model store over a real S3 server (Ceph radosgw from Debian, test/support/radosgw.ts):
// registries over one bucket see each other's publishes and stream them on WatchModels, an estimator
// behind one replica serves what another published, a publish killed midway is never visible, and an
// unreachable bucket answers UNAVAILABLE naming the store until it is back.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { startEstimator } from "../../services/estimator/main.js";
import { ModelEventKind } from "../../services/generated/kepler/model/v1/registry_service.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";
import { spawnNode } from "../support/child-process.js";
import { RADOSGW_TOOLS } from "../support/radosgw.js";
import { needs } from "../support/system-tools.js";
import {
  bucket,
  eventually,
  linear,
  modelNames,
  reachableGauge,
  rgw,
  scratchDir,
  startReplica,
  STORE,
  useS3Store,
  handles,
  POLL_MS,
} from "../support/s3-store.js";
import { bareEstimateRequest } from "../support/bare-estimate-request.js";

useS3Store();

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
      const response = await estimator.client.estimate(
        // BPFOnly's features; the model reads the first.
        bareEstimateRequest(["bpf_cpu_time_ms", "bpf_page_cache_hit"], Float64Array.of(500, 7), { pipelineName: "shared" }),
      );
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

  it("a publish killed after staging its files but before its commit marker leaves no visible model, and the next publish works", async () => {
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
    // The files went up staged, uncommitted; nothing of the model is in the layout readers fetch.
    expect(keys.filter((key) => key.startsWith(`${group}/SVRRegressorTrainer_0`))).toEqual([]);
    const staged = (await bucket.list(`.publishing/${group}/SVRRegressorTrainer_0`)).map((e) => e.path);
    expect(staged.some((key) => key.endsWith("/files/metadata.json"))).toBe(true);
    expect(staged.some((key) => key.endsWith("/committed"))).toBe(false);
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
