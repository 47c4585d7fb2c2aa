// Issue 34: memory is a budget. A real registry (with an estimator in the same process, as `serve registry
// estimator` runs them) takes six concurrent 250 MiB PublishModel uploads with its default settings: the
// process's peak resident memory (VmHWM, /proc/<pid>/status) stays under the shipped Deployment's 512 MiB
// limit, at least one upload is stored whole and reads back byte for byte, every other one is refused
// with RESOURCE_EXHAUSTED and a RetryInfo hint, Estimate answers every call made meanwhile, and no spooled
// upload is left in the model folder.
import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status, createChannel, createClientFactory } from "nice-grpc";
import { RetryInfo, RichClientError, errorDetailsClientMiddleware } from "nice-grpc-error-details";
import { afterAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import {
  type PublishModelRequest,
  RegistryServiceDefinition,
} from "../../services/generated/kepler/model/v1/registry_service.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { bareEstimateRequest } from "../support/bare-estimate-request.js";
import { type RunningChild, spawnNode } from "../support/child-process.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";
import { paddedModelArchive } from "../support/padded-model-archive.js";
import { BPF, model } from "../support/seeded-registry.js";

const MIB = 1024 * 1024;
const UPLOAD_BYTES = 250 * MIB;
const LIMIT_BYTES = 512 * MIB;
const UPLOADS = 6;

const children: RunningChild[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const { child } of children) if (child.exitCode === null) child.kill("SIGKILL");
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function peakResidentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024;
}

type Outcome = { ok: true; modelName: string } | { ok: false; error: ClientError };

describe("six concurrent 250 MiB uploads under a 512 MiB limit", { skip: !existsSync("/proc/self/status") }, () => {
  it("keep the registry under the limit: one stored whole, the rest RESOURCE_EXHAUSTED with a retry hint, Estimate answering", async () => {
    const modelPath = await mkdtemp(join(tmpdir(), "upload-budget-"));
    folders.push(modelPath);
    const serve = spawnNode(
      [
        ...["bin/kepler-model.js", "serve", "registry", "estimator", "--no-default-models"],
        ...["--log-format", "json", "--log-level", "warn", "--model-path", modelPath],
        ...["--registry-port", "0", "--estimator-port", "0", "--metrics-port", "0"],
      ],
      {},
      { tsx: false },
    );
    children.push(serve);
    await serve.waitForOutput(/Stop with Ctrl-C/, 60_000);
    const address = (name: string) => new RegExp(`^ {2}${name} +(127\\.0\\.0\\.1:\\d+)$`, "m").exec(serve.output())![1]!;
    const pid = serve.child.pid!;
    const channel = createChannel(address("registry"));
    const registry = createClientFactory().use(errorDetailsClientMiddleware).create(RegistryServiceDefinition, channel);
    const estimator = createEstimatorClient(address("estimator"));

    // A small model to estimate with, in a pipeline of its own (the big ones are never selected).
    await publishTestArchive(createRegistryClient(address("registry")), buildTestArchive(model("LinearRegressionTrainer", 0, 5)));
    const estimate = () =>
      estimator.client.estimate(
        bareEstimateRequest(BPF, new Float64Array([2000, 1]), {
          pipelineName: "std",
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        }),
      );
    const answer = await estimate();
    expect(answer.modelName).toBe("LinearRegressionTrainer_0");
    expect(answer.componentPowers.length).toBeGreaterThan(0);
    const expectedWatts = answer.componentPowers;
    const beforeBytes = await peakResidentBytes(pid);

    const archives = Array.from({ length: UPLOADS }, (_, i) =>
      paddedModelArchive(buildTestArchive(model("LinearRegressionTrainer", i, 50, { pipelineName: "bulk" })).zip, UPLOAD_BYTES),
    );
    const upload = async (i: number): Promise<Outcome> => {
      const archive = archives[i]!;
      async function* requests(): AsyncGenerator<PublishModelRequest> {
        const location = { ...buildTestArchive(model("LinearRegressionTrainer", i, 50, { pipelineName: "bulk" })).location };
        yield {
          content: {
            $case: "header",
            value: {
              location: { ...location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER },
              weightJson: "",
              archiveSizeBytes: archive.sizeBytes,
              archiveSha256: "",
            },
          },
        };
        for (const piece of archive.pieces()) yield { content: { $case: "archiveChunk", value: piece } };
      }
      try {
        const response = await registry.publishModel(requests());
        return { ok: true, modelName: response.metadata!.modelName };
      } catch (error) {
        if (error instanceof ClientError) return { ok: false, error };
        throw error;
      }
    };

    // Estimate every 100 ms while the uploads run.
    const latenciesMs: number[] = [];
    const estimateErrors: unknown[] = [];
    let uploading = true;
    const estimating = (async () => {
      while (uploading) {
        const started = performance.now();
        try {
          expect((await estimate()).componentPowers).toEqual(expectedWatts);
          latenciesMs.push(performance.now() - started);
        } catch (error) {
          estimateErrors.push(error);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const outcomes = await Promise.all(archives.map((_, i) => upload(i)));
    uploading = false;
    await estimating;
    const peakBytes = await peakResidentBytes(pid);

    const stored = outcomes.filter((o): o is Extract<Outcome, { ok: true }> => o.ok);
    const refused = outcomes.filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
    latenciesMs.sort((a, b) => a - b);
    console.log(
      `registry VmHWM ${(beforeBytes / MIB).toFixed(0)} MiB before the uploads, ${(peakBytes / MIB).toFixed(0)} MiB after; ` +
        `${stored.length} stored, ${refused.length} refused (${refused.map((o) => Status[o.error.code]).join(", ")}); ` +
        `${latenciesMs.length} estimates meanwhile, median ${latenciesMs[latenciesMs.length >> 1]?.toFixed(1)} ms, ` +
        `max ${latenciesMs.at(-1)?.toFixed(1)} ms`,
    );
    expect(peakBytes).toBeLessThan(LIMIT_BYTES);
    expect(stored.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const { error } of refused) {
      expect(Status[error.code]).toBe("RESOURCE_EXHAUSTED");
      expect(error.details).toMatch(/upload budget/);
      expect(error).toBeInstanceOf(RichClientError);
      expect((error as InstanceType<typeof RichClientError>).extra).toEqual([
        RetryInfo.fromPartial({ retryDelay: { seconds: 5, nanos: 0 } }),
      ]);
    }
    expect(estimateErrors).toEqual([]);
    expect(latenciesMs.length).toBeGreaterThan(0);

    // A stored upload reads back byte for byte.
    const expectedDigest = (archive: (typeof archives)[number]) => {
      const hash = createHash("sha256");
      for (const piece of archive.pieces()) hash.update(piece);
      return hash.digest("hex");
    };
    const first = stored[0]!;
    const index = Number(first.modelName.split("_").at(-1));
    const location = buildTestArchive(model("LinearRegressionTrainer", index, 50, { pipelineName: "bulk" })).location;
    const hash = createHash("sha256");
    let readBytes = 0;
    for await (const message of registry.getModelArchive({
      location: { ...location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER },
    })) {
      hash.update(message.archiveChunk);
      readBytes += message.archiveChunk.byteLength;
    }
    console.log(`registry VmHWM ${((await peakResidentBytes(pid)) / MIB).toFixed(0)} MiB after reading it back`);
    expect(readBytes).toBe(UPLOAD_BYTES);
    expect(hash.digest("hex")).toBe(expectedDigest(archives[index]!));
    // Nothing spooled is left behind.
    expect(readdirSync(modelPath).filter((name) => name.startsWith(".upload"))).toEqual([]);
    channel.close();
  }, 120_000);
});
