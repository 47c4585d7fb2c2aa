// `kepler-model evaluate --registry-address` against a registry whose store is a real S3 bucket (Ceph
// radosgw): the pipeline is imported through the registry into the bucket, read back from it by a second
// registry over the same bucket, and scored with the same numbers as the folder it came from.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, COREMARK, modelPath, PIPELINE, type Report, useEvaluatedModels } from "../support/evaluated-models.js";
import { RADOSGW_TOOLS } from "../support/radosgw.js";
import { bucket, startReplica, useS3Store } from "../support/s3-store.js";
import { skipWithout } from "../support/system-tools.js";

useS3Store();
useEvaluatedModels();

describe("evaluate over an S3-backed registry", () => {
  it("--registry-address reads the pipeline a bucket holds: the same numbers as the folder", async (context) => {
    skipWithout(context, ...RADOSGW_TOOLS);
    const writer = await startReplica();
    expect(await cli(["models", "import", join(modelPath, PIPELINE), "--registry-address", writer.address])).toContain(
      `imported pipeline ${PIPELINE}`,
    );
    const stored = (await bucket.list()).map((entry) => entry.path);
    expect(
      stored.filter((path) => path.startsWith(`${PIPELINE}/rapl-sysfs/AbsPower/CounterOnly/`) && path.endsWith(".zip")),
    ).toHaveLength(3);
    // A registry that never saw the folder: everything it serves comes from the bucket.
    const reader = await startReplica();
    const args = ["evaluate", "--pipeline", PIPELINE, "--input", COREMARK, "--source", "rapl-sysfs", "--json"];
    const local = JSON.parse(await cli([...args, "--model-path", modelPath])) as Report;
    const remote = JSON.parse(await cli([...args, "--registry-address", reader.address])) as Report & { source: string };
    expect(remote.source).toBe(`registry ${reader.address}`);
    expect(remote.models).toHaveLength(3);
    expect(remote.models).toEqual(local.models);
  });
});
