// Pipelines moved through buckets and URLs over a real S3 server (Ceph radosgw): the Tekton s3-push task
// with our CLI, `models import s3://` and `models import https://.../<pipeline>.zip`.
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { zipFolderTree } from "../../services/models/index.js";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { runCliCaptured } from "../support/run-cli.js";
import { readTektonResources, runStepScript, taskParams } from "../deploy/support/tekton-script.js";
import { RADOSGW_TOOLS } from "../support/radosgw.js";
import { skipWithout } from "../support/system-tools.js";
import { BUCKET, modelNames, rgw, scratchDir, startLocalRegistry, useS3Store, writePipelineFolder } from "../support/s3-store.js";

useS3Store();

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
