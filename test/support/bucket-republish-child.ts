// A separate process that re-publishes one model into a shared S3 model store, alternating between
// versions, until it is killed (test/registry/s3-publish-kills.test.ts kills it at random moments).
// Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY). It is started ahead of
// its trial: it loads its modules, says "ready", and touches the store only on SIGUSR2, then reads which
// version to publish first from <first index file> (what the previous trial left decides it).
//   node --import tsx bucket-republish-child.ts <cache> <s3://bucket/prefix> <endpoint> <location.json> <first index file> <zip>...
import { readFile } from "node:fs/promises";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { parseS3Url } from "../../services/object-store/index.js";
import { ModelCatalogue } from "../../services/registry/domain/model-catalogue.js";
import { SharedModelStore } from "../../services/registry/domain/shared-store.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";
import { S3ModelStorage } from "../../services/registry/storage/s3/s3-model-storage.js";

const [cachePath, storeUrl, endpoint, locationPath, firstIndexPath, ...zipPaths] = process.argv.slice(2) as string[];
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const bucket = new ObjectBucket(
  createS3Client({ endpoint: endpoint as string, region: "us-east-1", requestTimeoutMs: 5000 }),
  parseS3Url(storeUrl as string, "store"),
);
await new Promise<void>((resolve) => {
  // A signal listener alone does not keep the process alive.
  const alive = setInterval(() => undefined, 60_000);
  process.once("SIGUSR2", () => {
    clearInterval(alive);
    resolve();
  });
  process.stdout.write("ready\n");
});
// A marker of an earlier killed publish is left to the test: this writer completes only its own.
const store = await ModelCatalogue.open(await LocalFolderStorage.open(cachePath as string, quiet), {
  logger: quiet,
  shared: new SharedModelStore(new S3ModelStorage(bucket, Number.POSITIVE_INFINITY), quiet),
});
const location = JSON.parse(await readFile(locationPath as string, "utf8"));
const zips = await Promise.all(zipPaths.map((path) => readFile(path)));
process.stdout.write("publishing\n");
const firstIndex = Number(await readFile(firstIndexPath as string, "utf8"));
for (let i = firstIndex; ; i++) {
  await store.publish({ location, zip: zips[i % zips.length]! });
  process.stdout.write(`published ${i % zips.length}\n`);
}
