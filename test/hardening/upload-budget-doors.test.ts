// Server tests (issue 34): the other requests that hold a whole body read within the process's upload
// budget (upload-budget-bytes, here 1 MiB): POST /model bodies (HTTP 429 with Retry-After when another
// body holds the budget), RunPipeline recordings and BuildIdleProfile idle recordings (RESOURCE_EXHAUSTED
// when larger than the whole budget, before any peer is called).
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChannel } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuildIdleProfileOptions, IsolatorServiceDefinition } from "../../services/generated/kepler/model/v1/isolator_service.js";
import { PipelineServiceDefinition, RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { readIsolatorConfig } from "../../services/isolator/config.js";
import { startIsolator } from "../../services/isolator/main.js";
import { processUploadBudget } from "../../services/kit/calls/upload-budget.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { readPipelineConfig } from "../../services/pipeline/config.js";
import { startPipeline } from "../../services/pipeline/main.js";
import { startRegistry } from "../../services/registry/main.js";
import { budgetClientFactory, expectNeverFits, refusal } from "../support/budget-refusals.js";

const KIB = 1024;
const BUDGET_BYTES = 1024 * KIB;

let dir: string;
let registryHandle: ServerHandle;
let pipelineHandle: ServerHandle;
let isolatorHandle: ServerHandle;
const channels: ReturnType<typeof createChannel>[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "upload-budget-doors-"));
  registryHandle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: dir, rescanIntervalMs: 0, sourcePipelines: [], uploadBudgetBytes: BUDGET_BYTES },
    { logger: silentLogger() },
  );
  // Their peers are never reached: the recordings are refused while they are read.
  pipelineHandle = await startPipeline(
    {
      ...readPipelineConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      extractorAddress: "127.0.0.1:1",
      isolatorAddress: "127.0.0.1:1",
      trainerAddress: "127.0.0.1:1",
      uploadBudgetBytes: BUDGET_BYTES,
    },
    { logger: silentLogger() },
  );
  isolatorHandle = await startIsolator(
    {
      ...readIsolatorConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      extractorAddress: "127.0.0.1:1",
      uploadBudgetBytes: BUDGET_BYTES,
    },
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  for (const channel of channels.splice(0)) channel.close();
  await isolatorHandle?.close();
  await pipelineHandle?.close();
  await registryHandle?.close();
  await rm(dir, { recursive: true, force: true });
});

function client<D extends Parameters<typeof budgetClientFactory.create>[0]>(definition: D, address: string) {
  const channel = createChannel(address);
  channels.push(channel);
  return budgetClientFactory.create(definition, channel);
}

describe("bodies read whole within the upload budget", () => {
  it("POST /model bodies are read within the budget: one past what another holds gets HTTP 429 with Retry-After", async () => {
    const post = () =>
      httpRequest(`http://${registryHandle.address}/model`, { method: "POST", headers: { "content-type": "application/json" } });
    const holding = post();
    const held = new Promise<number>((resolve, reject) => {
      holding.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      holding.on("error", reject);
    });
    // 700 KiB sent, the body not ended: the registry holds them while it waits for the rest.
    holding.write(Buffer.alloc(700 * KIB, 32));
    const budget = processUploadBudget(BUDGET_BYTES);
    while (budget.inFlightBytes < 700 * KIB) await new Promise((resolve) => setTimeout(resolve, 10));
    const refused = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
      const second = post();
      second.on("response", (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"] });
      });
      second.on("error", reject);
      second.end(Buffer.alloc(700 * KIB, 32));
    });
    expect(refused).toEqual({ status: 429, retryAfter: "5" });
    holding.end("{}");
    // The held body completes and is answered as a request (here a bad one: no features), not refused.
    expect(await held).toBe(400);
  });

  it("BuildIdleProfile with an idle recording over the budget: RESOURCE_EXHAUSTED before the extractor is called", async () => {
    const isolator = client(IsolatorServiceDefinition, isolatorHandle.address);
    const options = BuildIdleProfileOptions.fromPartial({ energySources: ["rapl-sysfs"] });
    expectNeverFits(
      await refusal(
        isolator.buildIdleProfile(
          (async function* () {
            yield { content: { $case: "options" as const, value: options } };
            for (let i = 0; i < 4; i++)
              yield { content: { $case: "responseChunk" as const, value: Buffer.alloc(512 * KIB, 32) } };
          })(),
        ),
      ),
    );
  });

  it("RunPipeline with a recording over the budget: RESOURCE_EXHAUSTED before any peer is called", async () => {
    const pipeline = client(PipelineServiceDefinition, pipelineHandle.address);
    const options = RunPipelineOptions.fromPartial({ pipelineName: "recorded", energySources: ["rapl-sysfs"] });
    const run = pipeline.runPipeline(
      (async function* () {
        yield { content: { $case: "options" as const, value: options } };
        for (let i = 0; i < 4; i++) yield { content: { $case: "responseChunk" as const, value: Buffer.alloc(512 * KIB, 32) } };
      })(),
    );
    const drained = (async () => {
      for await (const _ of run) void _;
    })();
    expectNeverFits(await refusal(drained));
  });
});
