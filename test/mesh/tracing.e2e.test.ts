// OpenTelemetry tracing across the mesh (real servers on 127.0.0.1, spans kept by an in-memory
// exporter): one RunPipeline is one connected trace through pipeline, extractor, isolator, trainer and
// registry (context carried in gRPC metadata); one Estimate is one trace through estimator and registry;
// the services' log lines carry the trace id.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind } from "../../services/generated/kepler/model/v1/types.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { startTracing } from "../../services/kit/observe/tracing.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { recordedResponseText } from "../support/extractor-fixtures.js";
import { bareEstimateRequest } from "../support/bare-estimate-request.js";

const exporter = new InMemorySpanExporter();
const logLines: Array<Record<string, unknown>> = [];
let stopTracing: () => Promise<void>;
let folder: string;
let mesh: MeshHandle;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  stopTracing = await startTracing({ exporter });
  folder = await mkdtemp(join(tmpdir(), "tracing-e2e-"));
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n"))
        if (line !== "") logLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  mesh = await startMesh({
    logger: pino({ level: "debug" }, logs),
    observation: { measure: true, trace: true },
    flags: {
      ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"])),
      "model-path": folder,
      "registry-rescan-ms": "0",
    },
  });
}, 60_000);

afterAll(async () => {
  await mesh?.close();
  await stopTracing?.();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

const serviceOf = (span: ReadableSpan) => span.attributes["kepler_model.service"];

/** The spans of one trace, checked to form one tree under `root` (every parent is in the trace). */
function traceOf(root: ReadableSpan): ReadableSpan[] {
  const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === root.spanContext().traceId);
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  for (const span of spans) {
    if (span === root) continue;
    expect(ids.has(span.parentSpanContext?.spanId ?? ""), `${serviceOf(span)} ${span.name} has its parent in the trace`).toBe(
      true,
    );
  }
  expect(root.parentSpanContext).toBeUndefined();
  return spans;
}

describe("tracing across the mesh", () => {
  it("one RunPipeline is one connected trace through pipeline, extractor, isolator, trainer and registry; logs carry its id", async () => {
    const pipeline = createPipelineClient(address("pipeline"));
    try {
      const requests = (async function* () {
        yield {
          content: {
            $case: "options" as const,
            value: RunPipelineOptions.fromPartial({
              pipelineName: "traced",
              energySources: ["rapl-sysfs"],
              featureGroups: ["CounterOnly"],
              isolator: IsolatorKind.ISOLATOR_KIND_MIN,
              absTrainerNames: ["LinearRegressionTrainer"],
              dynTrainerNames: ["LinearRegressionTrainer"],
            }),
          },
        };
        yield { content: { $case: "responseChunk" as const, value: Buffer.from(recordedResponseText("coremark")) } };
      })();
      for await (const _ of pipeline.client.runPipeline(requests));
    } finally {
      pipeline.close();
    }
    const roots = exporter.getFinishedSpans().filter((span) => span.name === "/kepler.model.v1.PipelineService/RunPipeline");
    expect(roots).toHaveLength(1);
    const spans = traceOf(roots[0]!);
    expect(new Set(spans.map(serviceOf))).toEqual(new Set(["pipeline", "extractor", "isolator", "trainer", "registry"]));
    const names = spans.map((span) => span.name);
    for (const rpc of [
      "/kepler.model.v1.ExtractorService/Extract",
      "/kepler.model.v1.IsolatorService/Isolate",
      "/kepler.model.v1.TrainerService/Train",
      "/kepler.model.v1.RegistryService/PublishModel",
      "/kepler.model.v1.RegistryService/PutPipelineMetadata",
    ])
      expect(names, rpc).toContain(rpc);
    // The extractor's log line for its call names the same trace.
    const traceId = roots[0]!.spanContext().traceId;
    expect(logLines.some((line) => line.rpc === "/kepler.model.v1.ExtractorService/Extract" && line.traceId === traceId)).toBe(
      true,
    );
  }, 120_000);

  it("one Estimate is one trace through the estimator and the registry calls that load its model", async () => {
    const estimator = createEstimatorClient(address("estimator"));
    try {
      await estimator.client.estimate(
        bareEstimateRequest(["cpu_cycles", "cpu_instructions", "cache_miss"], Float64Array.of(2e9, 2.5e9, 4e6), {
          pipelineName: "traced",
        }),
      );
    } finally {
      estimator.close();
    }
    const roots = exporter.getFinishedSpans().filter((span) => span.name === "/kepler.model.v1.EstimatorService/Estimate");
    expect(roots).toHaveLength(1);
    const spans = traceOf(roots[0]!);
    expect(spans.map((span) => `${serviceOf(span)} ${span.name}`)).toEqual(
      expect.arrayContaining([
        "estimator /kepler.model.v1.EstimatorService/Estimate",
        "registry /kepler.model.v1.RegistryService/SelectModel",
      ]),
    );
  });
});
