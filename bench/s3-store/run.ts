// The shared S3 model store at scale, on a real radosgw (test/support/radosgw.ts; skipped with a message
// without the Debian packages): what one poll costs as the bucket grows (a no-change pull is one LIST per
// 1,000 keys; a fresh replica downloads every zip), and how long a publish takes to reach N replicas
// polling every 500 ms. Baseline in the same run: the local-folder registry's publish.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { ModelCatalogue } from "../../services/registry/domain/model-catalogue.js";
import { SharedModelStore } from "../../services/registry/domain/shared-store.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";
import { S3ModelStorage } from "../../services/registry/storage/s3/s3-model-storage.js";
import { buildTestArchive } from "../../test/support/model-archives.js";
import { RADOSGW_BINARY, startRadosgw } from "../../test/support/radosgw.js";
import { measure, ms, printTable } from "../support/measure.js";

const quiet = silentLogger();
const POLL_MS = 500;

function archive(index: number, pipelineName = "scale") {
  return buildTestArchive({
    pipelineName,
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName: "LinearRegressionTrainer",
    nodeType: index,
    features: ["bpf_cpu_time_ms"],
    scale: [1000],
    maeWatts: 2,
    model: { kind: "linear", components: [0, 1, 2, 3].map((i) => ({ intercept: 10 + i + index, coefficients: [10] })) },
    withWeights: true,
  });
}

export default async function run(): Promise<void> {
  if (!existsSync(RADOSGW_BINARY)) {
    console.log("skipped: no radosgw (apt-get install ceph-mon ceph-osd radosgw ceph-common)");
    return;
  }
  const rgw = await startRadosgw();
  const dirs: string[] = [];
  const scratch = async () => {
    const dir = await mkdtemp(join(tmpdir(), "bench-s3-"));
    dirs.push(dir);
    return dir;
  };
  process.env.AWS_ACCESS_KEY_ID = rgw.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = rgw.secretAccessKey;
  const admin = new S3Client({ endpoint: rgw.endpoint, region: "us-east-1", forcePathStyle: true });
  await admin.send(new CreateBucketCommand({ Bucket: "bench" }));
  admin.destroy();
  const settings = { endpoint: rgw.endpoint, region: "us-east-1", requestTimeoutMs: 10_000 };
  const openReplica = async (prefix: string) => {
    const bucket = new ObjectBucket(createS3Client(settings), { bucket: "bench", prefix });
    const replica = new SharedModelStore(new S3ModelStorage(bucket), quiet);
    const store = await ModelCatalogue.open(await LocalFolderStorage.open(await scratch(), quiet), {
      logger: quiet,
      shared: replica,
    });
    return { bucket, replica, store };
  };
  try {
    // Publish cost: local folder (baseline) vs the shared store.
    const local = await ModelCatalogue.open(await LocalFolderStorage.open(await scratch(), quiet), { logger: quiet });
    const shared = await openReplica("publish");
    let n = 0;
    const localPublish = await measure(
      async () => {
        const a = archive(n++ % 8);
        await local.publish({ location: a.location, zip: a.zip });
      },
      15,
      3,
    );
    const sharedPublish = await measure(
      async () => {
        const a = archive(n++ % 8);
        await shared.store.publish({ location: a.location, zip: a.zip });
      },
      15,
      3,
    );
    printTable(
      "publish one model (median)",
      ["store", "ms", "ratio"],
      [
        ["local folder (baseline)", ms(localPublish.medianMs), "1.00"],
        ["s3 (radosgw)", ms(sharedPublish.medianMs), (sharedPublish.medianMs / localPublish.medianMs).toFixed(2)],
      ],
    );

    // Poll cost as the bucket grows.
    const rows: string[][] = [];
    let filled = 0;
    const writer = await openReplica("grow");
    for (const models of [10, 100, 400]) {
      for (; filled < models; filled++) {
        const a = archive(filled, `grow${filled % 4}`);
        await writer.store.publish({ location: a.location, zip: a.zip });
      }
      const keys = (await writer.bucket.list()).length;
      const fresh = await measure(
        async () => {
          const reader = await openReplica("grow");
          await reader.replica.pull(reader.store);
          reader.replica.close();
        },
        3,
        0,
      );
      const reader = await openReplica("grow");
      await reader.replica.pull(reader.store);
      const idle = await measure(() => reader.replica.pull(reader.store), 9, 1);
      reader.replica.close();
      rows.push([String(models), String(keys), ms(idle.medianMs), ms(fresh.medianMs)]);
    }
    printTable("one pull (median)", ["models", "keys", "no change ms", "fresh replica ms"], rows);

    // Propagation to N replicas polling every POLL_MS.
    const propagation: string[][] = [];
    for (const replicas of [1, 4, 8]) {
      const readers = await Promise.all(Array.from({ length: replicas }, () => openReplica("fanout")));
      const timers = readers.map((r) => setInterval(() => void r.replica.pull(r.store).catch(() => {}), POLL_MS));
      const publisher = await openReplica("fanout");
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) {
        const a = archive(1000 + replicas * 10 + i, "fanout");
        const start = performance.now();
        await publisher.store.publish({ location: a.location, zip: a.zip });
        const key = a.location.modelName;
        while (
          !readers.every((r) => r.store.list().some((m) => m.location.modelName === key && m.location.pipelineName === "fanout"))
        )
          await new Promise((resolve) => setTimeout(resolve, 10));
        samples.push(performance.now() - start);
      }
      publisher.replica.close();
      for (const t of timers) clearInterval(t);
      for (const r of readers) r.replica.close();
      samples.sort((x, y) => x - y);
      propagation.push([String(replicas), ms(samples[2]!), ms(samples[4]!)]);
    }
    printTable(
      `publish -> seen by every replica (poll ${POLL_MS} ms, 5 publishes)`,
      ["replicas", "median ms", "max ms"],
      propagation,
    );
    shared.replica.close();
    writer.replica.close();
  } finally {
    await rgw.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}
