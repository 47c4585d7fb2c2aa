// A separate process that publishes one model into a shared S3 model store and stops at a publish step,
// so a test can kill it there (test/registry/s3-model-store.test.ts). Credentials come from the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
//   node --import tsx bucket-publish-child.ts <modelPath> <s3://bucket/prefix> <endpoint> <location.json> <zip> <step>
import { readFile } from "node:fs/promises";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { parseS3Url } from "../../services/object-store/index.js";
import { ModelCatalogue } from "../../services/registry/domain/model-catalogue.js";
import { SharedModelStore } from "../../services/registry/domain/shared-store.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";
import { S3ModelStorage } from "../../services/registry/storage/s3/s3-model-storage.js";

const [modelPath, storeUrl, endpoint, locationPath, zipPath, stopAt] = process.argv.slice(2) as string[];
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const bucket = new ObjectBucket(
  createS3Client({ endpoint: endpoint as string, region: "us-east-1", requestTimeoutMs: 5000 }),
  parseS3Url(storeUrl as string, "store"),
);
const store = await ModelCatalogue.open(await LocalFolderStorage.open(modelPath as string, quiet), {
  logger: quiet,
  shared: new SharedModelStore(new S3ModelStorage(bucket), quiet),
});
const location = JSON.parse(await readFile(locationPath as string, "utf8"));
await store.publish(
  { location, zip: await readFile(zipPath as string) },
  {
    onStep: async (step) => {
      if (step !== stopAt) return;
      process.stdout.write(`at ${step}\n`);
      await new Promise(() => {});
    },
  },
);
