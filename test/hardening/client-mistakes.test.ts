// Issue 17: client mistakes that used to come back INTERNAL, each over real gRPC (registry, trainer and
// extractor on 127.0.0.1:0) answered INVALID_ARGUMENT naming the field. A stand-in Prometheus (a
// plain HTTP server, not one of our services) answers with a null series. Hostile zips are in
// services/registry/hostile-archives.test.ts.
import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenTable } from "../fixtures/trainer/fixtures.js";
import { createExtractorClient } from "../../services/extractor/client.js";
import { startExtractor } from "../../services/extractor/main.js";
import { TrainOptions, type TrainRequest } from "../../services/generated/kepler/model/v1/trainer_service.js";
import { ExtractorKind, OutputType, TableLevel } from "../../services/generated/kepler/model/v1/types.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { tableToChunks } from "../../services/kit/transport/table-codec.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { STORE_FORMAT_FILE } from "../../services/registry/storage/store-format.js";
import { importPipelineZip } from "../support/import-pipeline-zip.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { readTrainerConfig } from "../../services/trainer/config.js";
import { startTrainer } from "../../services/trainer/main.js";
import { createZip } from "../../services/models/index.js";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { startPipeline } from "../../services/pipeline/main.js";
import { readPipelineConfig } from "../../services/pipeline/config.js";

// 200 characters: within the generic 256-character bound on name fields (request bounds, checked first),
// over the 128 a stored name may have (ENAMETOOLONG at 255 bytes per path segment). A 300-character name
// is refused by the generic bound ("at most 256 characters allowed"), tested at the end.
const LONG = "p".repeat(200);
const LONG_REASON = `"${"p".repeat(40)}..." has 200 characters; at most 128 are accepted`;

let dir: string;
let registryHandle: ServerHandle;
let trainerHandle: ServerHandle;
let extractorHandle: ServerHandle;
let pipelineHandle: ServerHandle;
let prometheus: Server;
let prometheusUrl: string;
let registry: ReturnType<typeof createRegistryClient>;
let trainer: ReturnType<typeof createTrainerClient>;
let extractor: ReturnType<typeof createExtractorClient>;
let pipeline: ReturnType<typeof createPipelineClient>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mistakes-"));
  registryHandle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  trainerHandle = await startTrainer(
    { ...readTrainerConfig({}), host: "127.0.0.1", port: 0, modelPath: join(dir, "trained"), registryAddress: "" },
    { logger: silentLogger() },
  );
  // Its peers are never reached: options are checked first.
  pipelineHandle = await startPipeline(
    {
      ...readPipelineConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      extractorAddress: "127.0.0.1:1",
      isolatorAddress: "127.0.0.1:1",
      trainerAddress: trainerHandle.address,
    },
    { logger: silentLogger() },
  );
  prometheus = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    const data = request.url?.startsWith("/api/v1/label/")
      ? ["kepler_node_platform_joules_total"]
      : { resultType: "matrix", result: [null] };
    response.end(JSON.stringify({ status: "success", data }));
  });
  await new Promise<void>((resolve) => prometheus.listen(0, "127.0.0.1", resolve));
  prometheusUrl = `http://127.0.0.1:${(prometheus.address() as { port: number }).port}`;
  extractorHandle = await startExtractor(
    { host: "127.0.0.1", port: 0, prometheusTimeoutMs: 2_000, prometheusAllowlist: [prometheusUrl], workerThreads: 1 },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(registryHandle.address);
  trainer = createTrainerClient(trainerHandle.address);
  extractor = createExtractorClient(extractorHandle.address);
  pipeline = createPipelineClient(pipelineHandle.address);
});
afterAll(async () => {
  registry.close();
  trainer.close();
  extractor.close();
  pipeline.close();
  await pipelineHandle.close();
  await Promise.all([registryHandle.close(), trainerHandle.close(), extractorHandle.close()]);
  await new Promise((resolve) => prometheus.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function failure(call: Promise<unknown> | AsyncIterable<unknown>) {
  try {
    if (Symbol.asyncIterator in call) for await (const _ of call);
    else await call;
    return { code: Status.OK, details: "" };
  } catch (error) {
    const { code, details } = error as { code: Status; details: string };
    return { code, details };
  }
}

const archive = (pipelineName: string, trainerName = "SGDRegressorTrainer") =>
  buildTestArchive({
    pipelineName,
    energySource: "acpi",
    featureGroup: "BPFOnly",
    trainerName,
    nodeType: 0,
    features: ["bpf_cpu_time_ms"],
    scale: [1],
    maeWatts: 3,
    model: { kind: "linear", components: [{ intercept: 1, coefficients: [2] }] },
  });

describe("over-long names (ENAMETOOLONG before) are INVALID_ARGUMENT naming the field and the bound", () => {
  it("PublishModel pipeline_name and model_name", async () => {
    expect(await failure(publishTestArchive(registry, archive(LONG)))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `location.pipeline_name: ${LONG_REASON}`,
    });
    const longModel = archive("std");
    longModel.location.modelName = LONG;
    expect(await failure(publishTestArchive(registry, longModel))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `location.model_name: ${LONG_REASON}`,
    });
  });

  it("PutPipelineMetadata, IndexMachine and ImportPipeline pipeline names", async () => {
    expect(await failure(registry.client.putPipelineMetadata({ pipelineName: LONG, metadataJson: "{}" }))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `pipeline_name: ${LONG_REASON}`,
    });
    expect(
      await failure(
        registry.client.indexMachine({
          pipelineName: LONG,
          machineId: "m",
          spec: { processor: "x", cores: 1, chips: 1, memoryGib: 1, frequencyMhz: 1, vendor: "", threadsPerCore: 0 },
        }),
      ),
    ).toEqual({ code: Status.INVALID_ARGUMENT, details: `pipeline_name: ${LONG_REASON}` });
    const zip = createZip([{ name: "metadata.json", data: new TextEncoder().encode("{}") }]);
    expect(await failure(importPipelineZip(registry, LONG, zip))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `header.pipeline_name: ${LONG_REASON}`,
    });
    // store-format.json is the store's own marker, written at start
    expect((await readdir(join(dir, "models"))).filter((name) => !name.startsWith(".") && name !== STORE_FORMAT_FILE)).toEqual(
      [],
    );
  });

  it("RunPipeline and StartOnlinePipeline pipeline_name", async () => {
    const window = {
      baseUrl: "http://127.0.0.1:1",
      startTimeSeconds: 1_700_000_000,
      endTimeSeconds: 1_700_000_060,
      stepSeconds: 3,
      thirdPartyMetricNames: [],
      metricPrefix: "",
    };
    const options = RunPipelineOptions.fromPartial({ pipelineName: LONG, energySources: ["acpi"], window });
    const run = pipeline.client.runPipeline(
      (async function* () {
        yield { content: { $case: "options" as const, value: options } };
      })(),
    );
    expect(await failure(run)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `options.pipeline_name: ${LONG_REASON}`,
    });
    expect(await failure(pipeline.client.startOnlinePipeline({ options, intervalSeconds: 60, lookbackSeconds: 60 }))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `options.pipeline_name: ${LONG_REASON}`,
    });
  });

  it("Train pipeline_name", async () => {
    expect(await failure(trainer.client.train(trainRequests({ pipelineName: LONG })))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `pipeline_name: ${LONG_REASON}`,
    });
  });
});

async function* trainRequests(options: Partial<TrainOptions>): AsyncGenerator<TrainRequest> {
  const base: Partial<TrainOptions> = {
    featureGroup: "CounterOnly",
    energySource: "acpi",
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    trainerNames: ["LinearRegressionTrainer"],
  };
  yield { content: { $case: "options", value: TrainOptions.fromPartial({ ...base, ...options }) } };
  for (const chunk of tableToChunks(goldenTable("acpi"), 500)) yield { content: { $case: "chunk", value: chunk } };
}

it("Train with an out-of-range node_type", async () => {
  expect(await failure(trainer.client.train(trainRequests({ nodeType: -3, skipPublish: true })))).toEqual({
    code: Status.INVALID_ARGUMENT,
    details: "node_type: expected an integer node type in [0, 2147483647], got -3",
  });
});

/** Node-level BPFOnly extraction on acpi with the default extractor. */
const ACPI_BPF_NODE = {
  energySource: "acpi",
  featureGroup: "BPFOnly",
  level: TableLevel.TABLE_LEVEL_NODE,
  extractor: ExtractorKind.EXTRACTOR_KIND_DEFAULT,
  useVmMetrics: false,
  thirdPartyMetricNames: [],
};

it("Extract with a null series in the response", async () => {
  const requests = async function* () {
    yield {
      content: {
        $case: "options" as const,
        value: ACPI_BPF_NODE,
      },
    };
    yield { content: { $case: "responseChunk" as const, value: Buffer.from('{"kepler_node_platform_joules_total": [null]}') } };
  };
  expect(await failure(extractor.client.extract(requests()))).toEqual({
    code: Status.INVALID_ARGUMENT,
    details:
      'response_chunk.kepler_node_platform_joules_total[0]: expected a series object {"metric": {...}, "values": [...]}, got null',
  });
});

it("ExtractFromPrometheus when the named Prometheus answers a null series", async () => {
  const call = extractor.client.extractFromPrometheus({
    options: ACPI_BPF_NODE,
    window: {
      baseUrl: prometheusUrl,
      startTimeSeconds: 1_700_000_000,
      endTimeSeconds: 1_700_000_060,
      stepSeconds: 3,
      thirdPartyMetricNames: [],
      metricPrefix: "",
    },
  });
  expect(await failure(call)).toEqual({
    code: Status.INVALID_ARGUMENT,
    details: `base_url: query_range of kepler_node_platform_joules_total from ${prometheusUrl}: result[0] is null, not a series {"metric": {...}, "values": [...]}`,
  });
});

describe("a 300-character name", () => {
  it("is refused by the generic request bound before any work", async () => {
    expect(await failure(registry.client.putPipelineMetadata({ pipelineName: "p".repeat(300), metadataJson: "{}" }))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: "pipeline_name: at most 256 characters allowed, got 300",
    });
  });
});

describe("PutPipelineMetadata files", () => {
  it("refuses a path outside train_arguments.json, preprocessed_data/<name>.csv and profile/<name>.json, writing nothing", async () => {
    const files = [
      { path: "train_arguments.json", data: Buffer.from("{}") },
      { path: "preprocessed_data/../../escape.csv", data: Buffer.from("a\n") },
    ];
    expect(await failure(registry.client.putPipelineMetadata({ pipelineName: "files", metadataJson: "{}", files }))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details:
        "files[1].path: expected train_arguments.json, preprocessed_data/<name>.csv or profile/<name>.json (letters, digits, _ - .)",
    });
    const { pipelines } = await registry.client.listPipelineMetadata({ pipelineNames: ["files"] });
    expect(pipelines).toEqual([]);
  });
});
