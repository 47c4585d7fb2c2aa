// The S3 store's format version on a real Ceph radosgw (test/support/radosgw.ts): a prefix without
// store-format.json (format 0) is opened and read unchanged, then stamped; a newer one is refused with
// the same error as a local folder (services/registry/storage/store-format.ts).
import { describe, expect, it } from "vitest";
import { FailedPreconditionError } from "../../services/domain/errors.js";
import { S3ModelStorage } from "../../services/registry/storage/s3/s3-model-storage.js";
import { STORE_FORMAT_FILE, STORE_FORMAT_VERSION } from "../../services/registry/storage/store-format.js";
import { files, LOCATION } from "../support/contract-models.js";
import { RADOSGW_TOOLS } from "../support/radosgw.js";
import { bucket, rgw, startReplica, STORE, useS3Store } from "../support/s3-store.js";
import { needs } from "../support/system-tools.js";

useS3Store();

const settings = () => ({ endpoint: rgw.endpoint, region: "us-east-1", requestTimeoutMs: 5000 });
const snapshot = async () => (await bucket.list()).map(({ path, etag }) => ({ path, etag }));

describe("the S3 store's format version", needs(...RADOSGW_TOOLS), () => {
  it("reads a store without store-format.json (format 0) unchanged and stamps it with the current format", async () => {
    const model = files("v1");
    await new S3ModelStorage(bucket).writeModel(LOCATION, model);
    const before = await snapshot();
    expect(before.map((e) => e.path)).not.toContain(STORE_FORMAT_FILE);

    const storage = await S3ModelStorage.open(STORE, settings(), "--model-store");
    try {
      const read = await storage.readModel(LOCATION);
      expect(Buffer.compare(read!.zip, Buffer.from(model.zip))).toBe(0);
      expect(read!.weightJson).toBe(model.weightJson);
    } finally {
      storage.close();
    }
    const after = await snapshot();
    // Every object of the older store untouched (same ETags), plus the marker.
    expect(after.filter((e) => e.path !== STORE_FORMAT_FILE)).toEqual(before);
    const marker = JSON.parse((await bucket.get(STORE_FORMAT_FILE))!.toString("utf8")) as { format_version: number };
    expect(marker.format_version).toBe(STORE_FORMAT_VERSION);
  });

  it("refuses a store of a newer format, naming the store and the way out, and leaves its marker alone", async () => {
    const newer = `{"format_version": ${STORE_FORMAT_VERSION + 1}}\n`;
    await bucket.put(STORE_FORMAT_FILE, newer);
    const opening = S3ModelStorage.open(STORE, settings(), "--model-store");
    await expect(opening).rejects.toBeInstanceOf(FailedPreconditionError);
    await expect(opening).rejects.toThrow(
      `${STORE} holds a model store of format ${STORE_FORMAT_VERSION + 1}, newer than kepler-model `,
    );
    // The registry over it does not start either.
    await expect(startReplica()).rejects.toThrow(`holds a model store of format ${STORE_FORMAT_VERSION + 1}`);
    expect((await bucket.get(STORE_FORMAT_FILE))!.toString("utf8")).toBe(newer);
  });
});
