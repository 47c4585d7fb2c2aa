// Server tests (issue 34): registry uploads are spooled to a temporary file in the model folder as they
// arrive and reserve their bytes in the process's upload budget (upload-budget-bytes, here 1 MiB). An
// upload (or a GetModelArchive read whole) that does not fit beside the others is refused with
// RESOURCE_EXHAUSTED and a RetryInfo hint; one larger than the whole budget (a PublishModel by its
// announced size, an ImportPipeline by its running size, an archive by what it inflates to) with
// RESOURCE_EXHAUSTED and no hint. Every failure removes the spooled file and gives the bytes back; a
// spooled upload a kill left behind is removed on start. The other doors: upload-budget-doors.test.ts.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Status, createChannel } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PublishModelRequest,
  RegistryServiceDefinition,
} from "../../services/generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { processUploadBudget } from "../../services/kit/calls/upload-budget.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { startRegistry } from "../../services/registry/main.js";
import { createZip } from "../../services/models/zip-writer.js";
import { readZip } from "../../services/models/zip-reader.js";
import { budgetClientFactory, expectBudgetBusy, expectNeverFits, refusal } from "../support/budget-refusals.js";
import { buildTestArchive } from "../support/model-archives.js";
import { paddedModelArchive } from "../support/padded-model-archive.js";
import { model } from "../support/seeded-registry.js";

const KIB = 1024;
const BUDGET_BYTES = 1024 * KIB;

let dir: string;
let modelPath: string;
let registryHandle: ServerHandle;
let channels: ReturnType<typeof createChannel>[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "upload-spool-"));
  modelPath = join(dir, "models");
  await mkdir(modelPath);
  // A spooled upload a kill interrupted an hour ago, and one another registry on the folder writes now.
  await writeFile(join(modelPath, ".upload.tmp-0ld0ne"), "partial");
  await utimes(join(modelPath, ".upload.tmp-0ld0ne"), new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
  await writeFile(join(modelPath, ".upload.tmp-fresh1"), "partial");
  registryHandle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0, sourcePipelines: [], uploadBudgetBytes: BUDGET_BYTES },
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  for (const channel of channels) channel.close();
  channels = [];
  await registryHandle?.close();
  await rm(dir, { recursive: true, force: true });
});

function registry() {
  const channel = createChannel(registryHandle.address);
  channels.push(channel);
  return budgetClientFactory.create(RegistryServiceDefinition, channel);
}

const spooled = () => readdirSync(modelPath).filter((name) => name.startsWith(".upload"));

// A PublishModel of `zip`'s pieces; `beforeLast` runs before the last piece is sent.
async function* publishRequests(
  nodeType: number,
  pieces: Iterable<Buffer>,
  sizeBytes: number,
  beforeLast: () => Promise<void> = async () => {},
): AsyncGenerator<PublishModelRequest> {
  const { location } = buildTestArchive(model("LinearRegressionTrainer", nodeType, 5));
  yield {
    content: {
      $case: "header",
      value: {
        location: { ...location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER },
        weightJson: "",
        archiveSizeBytes: sizeBytes,
        archiveSha256: "",
      },
    },
  };
  const all = [...pieces];
  for (const [i, piece] of all.entries()) {
    if (i === all.length - 1) await beforeLast();
    yield { content: { $case: "archiveChunk", value: piece } };
  }
}

function padded(nodeType: number, sizeBytes: number) {
  return paddedModelArchive(buildTestArchive(model("LinearRegressionTrainer", nodeType, 5)).zip, sizeBytes);
}

describe("uploads spooled to disk within the upload budget", () => {
  it("removed on start: a spooled upload older than the leftover age; a fresh one is kept", async () => {
    expect(existsSync(join(modelPath, ".upload.tmp-0ld0ne"))).toBe(false);
    expect(spooled()).toEqual([".upload.tmp-fresh1"]);
    await rm(join(modelPath, ".upload.tmp-fresh1"));
  });

  it("an upload is written to a temporary file in the model folder as it arrives, removed once published", async () => {
    const archive = padded(1, 900 * KIB);
    let sizeWhileUploading = 0;
    const response = await registry().publishModel(
      publishRequests(1, archive.pieces(), archive.sizeBytes, async () => {
        while (spooled().length === 0 || statSync(join(modelPath, spooled()[0]!)).size < 512 * KIB)
          await new Promise((resolve) => setTimeout(resolve, 10));
        sizeWhileUploading = statSync(join(modelPath, spooled()[0]!)).size;
      }),
    );
    expect(response.metadata?.modelName).toBe("LinearRegressionTrainer_1");
    expect(sizeWhileUploading).toBeGreaterThanOrEqual(512 * KIB);
    expect(spooled()).toEqual([]);
  });

  it("an upload of at most 256 KiB is held in memory: no temporary file while it arrives, published all the same", async () => {
    const archive = padded(3, 200 * KIB);
    let filesWhileUploading: string[] | undefined;
    const response = await registry().publishModel(
      publishRequests(3, archive.pieces(), archive.sizeBytes, async () => {
        filesWhileUploading = spooled();
      }),
    );
    expect(response.metadata?.modelName).toBe("LinearRegressionTrainer_3");
    expect(filesWhileUploading).toEqual([]);
    expect(spooled()).toEqual([]);
  });

  it("PublishModel announcing more than the whole budget: RESOURCE_EXHAUSTED at its first chunk, nothing left", async () => {
    const archive = padded(2, 2048 * KIB);
    expectNeverFits(await refusal(registry().publishModel(publishRequests(2, archive.pieces(), archive.sizeBytes))));
    expect(spooled()).toEqual([]);
  });

  it("PublishModel and GetModelArchive while an upload holds the budget: RESOURCE_EXHAUSTED with a retry hint; then they fit", async () => {
    const holding = padded(5, 700 * KIB);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holdingStarted!: () => void;
    const started = new Promise<void>((resolve) => (holdingStarted = resolve));
    const first = registry().publishModel(
      publishRequests(5, holding.pieces(), holding.sizeBytes, async () => {
        holdingStarted();
        await released;
      }),
    );
    await started;
    const budget = processUploadBudget(BUDGET_BYTES);
    while (budget.inFlightBytes < holding.sizeBytes) await new Promise((resolve) => setTimeout(resolve, 10));
    const second = padded(6, 700 * KIB);
    expectBudgetBusy(await refusal(registry().publishModel(publishRequests(6, second.pieces(), second.sizeBytes))));
    // A download read whole is in the same budget: model 1's 900 KiB do not fit beside the 700 held.
    const { location } = buildTestArchive(model("LinearRegressionTrainer", 1, 5));
    const download = () => {
      const messages = registry().getModelArchive({ location: { ...location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER } });
      return (async () => {
        let bytes = 0;
        for await (const message of messages) bytes += message.archiveChunk.byteLength;
        return bytes;
      })();
    };
    expectBudgetBusy(await refusal(download()));
    release();
    expect((await first).metadata?.modelName).toBe("LinearRegressionTrainer_5");
    expect(await download()).toBe(900 * KIB);
    expect((await registry().publishModel(publishRequests(6, second.pieces(), second.sizeBytes))).metadata?.modelName).toBe(
      "LinearRegressionTrainer_6",
    );
    expect(spooled()).toEqual([]);
  });

  it("ImportPipeline without an announced size: RESOURCE_EXHAUSTED once its running size passes the whole budget", async () => {
    async function* requests() {
      yield {
        content: { $case: "header" as const, value: { pipelineName: "big", serverPath: "", replace: false, force: false } },
      };
      for (let i = 0; i < 4; i++) yield { content: { $case: "archiveChunk" as const, value: Buffer.alloc(512 * KIB, i) } };
    }
    expectNeverFits(await refusal(registry().importPipeline(requests())));
    expect(spooled()).toEqual([]);
  });

  it("a small archive that inflates past the budget: RESOURCE_EXHAUSTED before it is read, nothing left", async () => {
    const { zip } = buildTestArchive(model("LinearRegressionTrainer", 4, 5));
    // 2 MiB, one random byte in 64: deflates to a small part of its size, under the zip bomb ratio bound.
    const sparse = new Uint8Array(2048 * KIB);
    const noise = randomBytes(sparse.length / 64);
    noise.forEach((value, i) => (sparse[i * 64] = value));
    const inflating = createZip([...readZip(zip), { name: "sparse.bin", data: sparse }]);
    expect(inflating.length).toBeLessThan(512 * KIB);
    expectNeverFits(await refusal(registry().publishModel(publishRequests(4, [inflating], inflating.length))));
    expect(spooled()).toEqual([]);
  });

  it("an archive unlike its header (size, SHA-256): INVALID_ARGUMENT naming the field, nothing left", async () => {
    const { zip } = buildTestArchive(model("LinearRegressionTrainer", 7, 5));
    const bytes = Buffer.from(zip);
    const sizeError = await refusal(registry().publishModel(publishRequests(7, [bytes], bytes.length + 1)));
    expect([Status[sizeError.code], sizeError.details]).toEqual([
      "INVALID_ARGUMENT",
      `header.archive_size_bytes: announced ${bytes.length + 1} bytes, received ${bytes.length}`,
    ]);
    async function* wrongDigest(): AsyncGenerator<PublishModelRequest> {
      for await (const request of publishRequests(7, [bytes], bytes.length)) {
        if (request.content?.$case === "header") request.content.value.archiveSha256 = "0".repeat(64);
        yield request;
      }
    }
    const digestError = await refusal(registry().publishModel(wrongDigest()));
    expect([Status[digestError.code], digestError.details]).toEqual([
      "INVALID_ARGUMENT",
      "header.archive_sha256: does not match the received archive",
    ]);
    expect(spooled()).toEqual([]);
  });

  it("an archive refused by the zip checks on the file gives its bytes back: a budget-sized upload follows", async () => {
    const notZip = Buffer.alloc(700 * KIB, 7);
    const error = await refusal(registry().publishModel(publishRequests(3, [notZip], notZip.length)));
    expect(Status[error.code]).toBe("INVALID_ARGUMENT");
    expect(error.details).toBe("archive: not a ZIP archive (no end of central directory record)");
    expect(spooled()).toEqual([]);
    const archive = padded(3, BUDGET_BYTES);
    expect((await registry().publishModel(publishRequests(3, archive.pieces(), archive.sizeBytes))).metadata?.modelName).toBe(
      "LinearRegressionTrainer_3",
    );
  });
});
