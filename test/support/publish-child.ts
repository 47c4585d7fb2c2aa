// A separate process that publishes a model into MODEL_PATH and can be stopped at a publish step, so
// tests can kill it there (services/registry/crash-safety.test.ts).
//   node --import tsx publish-child.ts <modelPath> <location.json> <zip-a> [<zip-b>] <stop-at|loop>
// With "loop" it prints "ready" once the store is open, then publishes zip-a and zip-b alternately
// forever, printing "published <n>" after each.
import { readFile } from "node:fs/promises";
import { ModelCatalogue } from "../../services/registry/domain/model-catalogue.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";

const [modelPath, locationPath, zipA, ...rest] = process.argv.slice(2);
const mode = rest[rest.length - 1] as string;
const zipB = rest.length > 1 ? rest[0] : undefined;
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const store = await ModelCatalogue.open(await LocalFolderStorage.open(modelPath as string, quiet), { logger: quiet });
const location = JSON.parse(await readFile(locationPath as string, "utf8"));
const archives = [await readFile(zipA as string), ...(zipB === undefined ? [] : [await readFile(zipB)])];

if (mode === "loop") {
  process.stdout.write("ready\n");
  for (let n = 1; ; n++) {
    await store.publish({ location, zip: archives[n % archives.length] as Buffer });
    process.stdout.write(`published ${n}\n`);
  }
} else {
  await store.publish(
    { location, zip: archives[0] as Buffer },
    {
      onStep: async (step) => {
        if (step !== mode) return;
        process.stdout.write(`at ${step}\n`);
        await new Promise(() => {});
      },
    },
  );
}
