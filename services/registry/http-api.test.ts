// Server tests: the reference model server's HTTP API (POST /model, GET /best-models) on a real
// registry's gRPC port (127.0.0.1:0), with the ec2 fixture pipeline imported, called the way Kepler
// 0.7.12 calls it; gRPC clients on the same port at the same time; and bad input of every kind.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { readZip } from "../models/index.js";
import { createRegistryClient } from "./client.js";
import { startRegistry } from "./main.js";
import { buildTestArchive, publishTestArchive, type TestModelSpec } from "../../test/support/model-archives.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { zipFolderTree } from "../models/index.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
const BPF = ["bpf_cpu_time_ms", "bpf_page_cache_hit"];
const SILENT_TIMEOUT_MS = 1000;

// Kepler 0.7.12's POST /model body, byte for byte (issue 12).
const KEPLER_0712_BODY =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss","cpu_architecture"],"output_type":"AbsPower","source":"intel_rapl","node_type":0,"weight":true,"trainer_name":"SGDRegressorTrainer","filter":"","machine_spec":{"vendor":"authenticamd","processor":"amd_epyc","cores":2,"chips":1,"memory":23,"frequency":2600,"threads_per_core":1}}';

const fixtureFile = async (path: string) => readFile(join(FIXTURE, path));
const fixtureJson = async (path: string) => JSON.parse((await fixtureFile(path)).toString("utf8"));

function linearModel(extra: Partial<TestModelSpec>): TestModelSpec {
  return {
    pipelineName: "std",
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName: "SGDRegressorTrainer",
    nodeType: 0,
    features: BPF,
    scale: [1000, 1],
    maeWatts: 10,
    withWeights: true,
    model: { kind: "linear", components: [0, 1, 2, 3].map((i) => ({ intercept: 50 + i, coefficients: [10, 1] })) },
    ...extra,
  };
}

async function startTestRegistry() {
  const dir = await mkdtemp(join(tmpdir(), "registry-http-"));
  const handle = await startRegistry(
    {
      host: "127.0.0.1",
      port: 0,
      modelPath: dir,
      rescanIntervalMs: 0,
      sourcePipelines: [],
      httpHeadersTimeoutMs: SILENT_TIMEOUT_MS,
      httpRequestTimeoutMs: 5000,
    },
    { logger: silentLogger() },
  );
  const registry = createRegistryClient(handle.address);
  return {
    handle,
    registry,
    url: (path: string) => `http://${handle.address}${path}`,
    async close() {
      registry.close();
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

type TestRegistry = Awaited<ReturnType<typeof startTestRegistry>>;

const postModel = (server: TestRegistry, body: string | object) =>
  fetch(server.url("/model"), {
    method: "POST",
    headers: { "Content-Type": "application/json; charset=UTF-8" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

async function expectServing(server: TestRegistry): Promise<void> {
  const channel = createChannel(server.handle.address);
  try {
    expect((await createClient(HealthDefinition, channel).check({ service: "" })).status).toBe(1);
  } finally {
    channel.close();
  }
}

// A raw TCP client: writes the given pieces (pausing between them) and collects what comes back until
// the server closes or one complete response (head plus Content-Length bytes) has arrived.
function rawExchange(
  port: number,
  pieces: Array<string | Buffer>,
  pauseMs = 20,
): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const done = () => resolve({ text: Buffer.concat(chunks).toString("latin1"), closedAfterMs: Date.now() - started });
    const socket: Socket = connect(port, "127.0.0.1", async () => {
      for (const piece of pieces) {
        if (socket.destroyed) break;
        socket.write(piece);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      const headEnd = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, headEnd + 2));
      if (headEnd >= 0 && length !== null && text.length - headEnd - 4 >= Number(length[1])) {
        socket.destroy();
        done();
      }
    });
    socket.on("error", reject);
    socket.on("close", done);
  });
}

describe("the reference's HTTP API on the registry port, ec2 fixture imported", () => {
  let server: TestRegistry;
  beforeAll(async () => {
    server = await startTestRegistry();
    await importPipelineZip(server.registry, "ec2-fixture", await zipFolderTree(FIXTURE));
    await publishTestArchive(
      server.registry,
      buildTestArchive(linearModel({ pipelineName: "ec2-fixture", outputType: "DynPower", maeWatts: 7 })),
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it("answers Kepler 0.7.12's exact request with the stored weight.json plus model_name, machine_spec and mae (it sent a machine_spec)", async () => {
    const response = await postModel(server, KEPLER_0712_BODY);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    // Kepler >= 0.7.12 decodes a struct with model_name and machine_spec and ignores other keys.
    expect(await response.json()).toEqual({
      ...(await fixtureJson("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json")),
      model_name: "SGDRegressorTrainer_0",
      machine_spec: { processor: "intel_xeon_platinum_8259cl", cores: 96, chips: 2, memory: 377, frequency: 3500 },
      mae: 60.78,
    });
    // node_type 0 beside a machine spec is no node type: the nearest spec of ec2's index with models, type 0.
    expect(response.headers.get("x-kepler-model-node-type")).toBe("ec2-fixture/0");
    expect(response.headers.get("x-kepler-model-node-type-match")).toBe("similarity");
    await expectServing(server);
  });

  it("adds model_name, machine_spec and mae when node_type is -1, as the reference does", async () => {
    const body = { ...JSON.parse(KEPLER_0712_BODY), node_type: -1, machine_spec: null };
    const answer = (await (await postModel(server, body)).json()) as Record<string, unknown>;
    expect(answer).toEqual({
      ...(await fixtureJson("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json")),
      model_name: "SGDRegressorTrainer_0",
      machine_spec: { processor: "intel_xeon_platinum_8259cl", cores: 96, chips: 2, memory: 377, frequency: 3500 },
      mae: 60.78,
    });
  });

  it("answers Kepler 0.5.4-0.7.11's request (node_type 1, no machine_spec) with a plain component map", async () => {
    const { machine_spec: _spec, ...older } = JSON.parse(KEPLER_0712_BODY) as Record<string, unknown>;
    const response = await postModel(server, { ...older, node_type: 1 });
    expect(response.status).toBe(200);
    // Those versions decode map[string]ModelWeights: any top-level model_name would break them.
    expect(await response.json()).toEqual(await fixtureJson("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json"));
  });

  it("serves acpi (platform) weights", async () => {
    const body = { ...JSON.parse(KEPLER_0712_BODY), source: "acpi" };
    const response = await postModel(server, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject(await fixtureJson("acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.json"));
  });

  it("serves DynPower weights", async () => {
    const body = { ...JSON.parse(KEPLER_0712_BODY), output_type: "DynPower" };
    const weights = (await (await postModel(server, body)).json()) as Record<string, { All_Weights: unknown }>;
    expect(Object.keys(weights).filter((key) => weights[key]?.All_Weights !== undefined)).toEqual([
      "package",
      "core",
      "uncore",
      "dram",
    ]);
    expect(weights.dram?.All_Weights).toEqual({
      Bias_Weight: 53,
      Categorical_Variables: {},
      Numerical_Variables: { bpf_cpu_time_ms: { scale: 1000, weight: 10 }, bpf_page_cache_hit: { scale: 1, weight: 1 } },
    });
  });

  it("sends the model zip as an attachment when weight is false", async () => {
    const body = { ...JSON.parse(KEPLER_0712_BODY), weight: false };
    const response = await postModel(server, body);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toBe("attachment; filename=SGDRegressorTrainer_0.zip");
    const zip = Buffer.from(await response.arrayBuffer());
    expect(Buffer.compare(zip, await fixtureFile("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip"))).toBe(0);
    const metadata = readZip(zip).find((entry) => entry.name === "metadata.json");
    expect(JSON.parse(new TextDecoder().decode(metadata?.data)).model_name).toBe("SGDRegressorTrainer_0");
  });

  it("lists the best models in the reference's shape", async () => {
    const response = await fetch(server.url("/best-models?energy-source=intel_rapl"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      AbsPower: { BPFOnly: "SGDRegressorTrainer_0" },
      DynPower: { BPFOnly: "SGDRegressorTrainer_0" },
    });
    const acpi = await fetch(server.url("/best-models?energy-source=acpi&output-type=AbsPower&feature-group=BPFOnly"));
    expect(await acpi.json()).toEqual({ AbsPower: { BPFOnly: "SGDRegressorTrainer_0" } });
    const bad = await fetch(server.url("/best-models?output-type=Watts"));
    expect([bad.status, await bad.text()]).toEqual([
      400,
      'failed to get best model list: output-type: expected "AbsPower" or "DynPower", got "Watts"',
    ]);
  });

  it("answers 400 naming the field for malformed JSON and wrong types, and 400 for an unknown source", async () => {
    const cases: Array<[string, string]> = [
      ['{"metrics": [', "body: not valid JSON"],
      ["[1, 2]", "body: expected a JSON object (a ModelRequest)"],
      ['{"output_type": "AbsPower"}', "metrics: required: a non-empty list of metric names"],
      ['{"metrics": ["bpf_cpu_time_ms", 3], "output_type": "AbsPower"}', "metrics[1]: expected a string, got 3"],
      [
        '{"metrics": ["bpf_cpu_time_ms"], "output_type": "AbsPower", "weight": "yes"}',
        'weight: expected true or false, got "yes"',
      ],
      [
        '{"metrics": ["bpf_cpu_time_ms"], "output_type": "AbsPower", "node_type": 1.5}',
        "node_type: expected an integer, got 1.5",
      ],
      [
        '{"metrics": ["bpf_cpu_time_ms"], "output_type": "AbsPower", "machine_spec": {"cores": "many"}}',
        'machine_spec.cores: expected a non-negative number, got "many"',
      ],
      ['{"metrics": ["bpf_cpu_time_ms"], "output_type": "Watts"}', 'output_type: expected "AbsPower" or "DynPower", got "Watts"'],
      ['{"metrics": ["bpf_cpu_time_ms"], "output_type": "AbsPower", "source": "gpu"}', "energy_source: unknown energy source"],
    ];
    for (const [body, start] of cases) {
      const response = await postModel(server, body);
      const text = await response.text();
      expect([response.status, text.startsWith(start)], `${body} -> ${text}`).toEqual([400, true]);
    }
    await expectServing(server);
  });

  it("ignores keys it does not know (the reference answers 500)", async () => {
    const response = await postModel(server, { ...JSON.parse(KEPLER_0712_BODY), kepler_version: "0.7.12" });
    expect(response.status).toBe(200);
  });

  it("answers 400 'cannot find model' with what was searched when nothing fits", async () => {
    const body = { ...JSON.parse(KEPLER_0712_BODY), trainer_name: "XgboostFitTrainer" };
    const response = await postModel(server, body);
    expect(response.status).toBe(400);
    expect(await response.text()).toBe(
      `cannot find model for ${JSON.stringify(body)} at the moment: 2 AbsPower models for rapl-sysfs in pipeline "ec2-fixture" cover the given features, but none passes trainer_name "XgboostFitTrainer" and weight (weight-capable trainers with a weight.json only)`,
    );
  });

  it("answers 404 for other paths and 405 for other methods", async () => {
    const missing = await fetch(server.url("/model/AbsPower"));
    expect([missing.status, await missing.text()]).toEqual([
      404,
      "no route /model/AbsPower: the routes are POST /model, GET /best-models and GET /ui",
    ]);
    const wrong = await fetch(server.url("/model"));
    expect([wrong.status, wrong.headers.get("allow"), await wrong.text()]).toEqual([405, "POST", "/model takes POST"]);
  });

  it("serves a request that arrives in several small writes, even the first bytes split", async () => {
    const head = `POST /model HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(KEPLER_0712_BODY)}\r\nConnection: close\r\n\r\n`;
    const whole = head + KEPLER_0712_BODY;
    const pieces = ["P", "O", "ST /mo", ...(whole.slice(8).match(/[\s\S]{1,40}/g) as string[])];
    const { text } = await rawExchange(server.handle.port, pieces, 5);
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    const body = text.slice(text.indexOf("\r\n\r\n") + 4);
    expect(JSON.parse(body)).toMatchObject(await fixtureJson("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json"));
  });

  it("answers 413 to a 10 MB body and keeps serving", async () => {
    const huge = Buffer.alloc(10 * 1024 * 1024, 0x20);
    const head = `POST /model HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${huge.length}\r\n\r\n`;
    const { text } = await rawExchange(server.handle.port, [head, huge], 5);
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(text.endsWith("request body larger than 1048576 bytes")).toBe(true);
    const chunked = await postModel(server, `{"metrics": [${'"x",'.repeat(300_000)}"x"], "output_type": "AbsPower"}`);
    expect(chunked.status).toBe(413);
    await expectServing(server);
    expect((await postModel(server, KEPLER_0712_BODY)).status).toBe(200);
  });

  it("closes a connection that says nothing, and one that stops mid-head, after the head timeout", async () => {
    const silent = await rawExchange(server.handle.port, []);
    expect(silent.text).toBe("");
    expect(silent.closedAfterMs).toBeGreaterThanOrEqual(SILENT_TIMEOUT_MS - 50);
    const partial = await rawExchange(server.handle.port, ["POST /model HTTP/1.1\r\nHo"]);
    expect(partial.text.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    await expectServing(server);
  });

  it("answers garbage bytes with 400 and a closed connection", async () => {
    const garbage = Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a, 0x42]);
    const { text } = await rawExchange(server.handle.port, [garbage]);
    expect(text.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    const almostGrpc = await rawExchange(server.handle.port, ["PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n"]);
    expect(almostGrpc.text.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
    await expectServing(server);
  });

  it("serves gRPC on the same port at the same time: SelectModel, health, reflection", async () => {
    const [http, grpcAnswer] = await Promise.all([
      postModel(server, KEPLER_0712_BODY),
      server.registry.client.selectModel({
        featureNames: BPF,
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "intel_rapl",
        trainerName: "SGDRegressorTrainer",
        weight: true,
      }),
    ]);
    expect(http.status).toBe(200);
    expect(grpcAnswer.metadata?.modelName).toBe("SGDRegressorTrainer_0");
    const { model_name: _name, machine_spec: _spec, mae: _mae, ...components } = (await http.json()) as Record<string, unknown>;
    expect(JSON.parse(grpcAnswer.payload?.value as string)).toEqual(components);
    await expectServing(server);
    for (const version of ["v1", "v1alpha"] as const) {
      const reflection = new GrpcReflection(server.handle.address, grpc.credentials.createInsecure(), {}, version);
      expect((await reflection.listServices()).sort()).toEqual([
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "kepler.model.v1.RegistryService",
      ]);
    }
  });
});

describe("selection across pipelines when the request names none", () => {
  let server: TestRegistry;
  beforeAll(async () => {
    server = await startTestRegistry();
  });
  afterAll(async () => {
    await server.close();
  });

  const keplerRequest = { ...JSON.parse(KEPLER_0712_BODY), node_type: -1, machine_spec: null };
  const servedBy = async () =>
    ((await (await postModel(server, keplerRequest)).json()) as { model_name: string; mae: number }).mae;

  it("the better model wins whichever pipeline was published last", async () => {
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "good", maeWatts: 4 })));
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "later", maeWatts: 9 })));
    expect(await servedBy()).toBe(4);
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "latest", maeWatts: 2 })));
    expect(await servedBy()).toBe(2);
    const grpcAnswer = await server.registry.client.selectModel({
      featureNames: BPF,
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "rapl-sysfs",
      metadataOnly: true,
    });
    expect(grpcAnswer.metadata?.location?.pipelineName).toBe("latest");
    expect(grpcAnswer.selection?.reason).toBe(
      'SGDRegressorTrainer_0 has the lowest held-out MAE (2 W) of 3 candidate models in BPFOnly of pipelines "good", "later", "latest"; trained for any node type (no machine spec)',
    );
  });

  it("breaks an MAE tie by pipeline name", async () => {
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "aaa", maeWatts: 2 })));
    const answer = await server.registry.client.selectModel({
      featureNames: BPF,
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "rapl-sysfs",
      metadataOnly: true,
    });
    expect(answer.metadata?.location?.pipelineName).toBe("aaa");
  });

  it("GET /best-models applies the same rule", async () => {
    const listed = await server.registry.client.listBestModels({ energySource: "rapl-sysfs" });
    expect(listed.bestModels.map((b) => [b.location?.pipelineName, b.modelName, b.maeWatts])).toEqual([
      ["aaa", "SGDRegressorTrainer_0", 2],
    ]);
    expect(await (await fetch(server.url("/best-models"))).json()).toEqual({
      AbsPower: { BPFOnly: "SGDRegressorTrainer_0" },
      DynPower: {},
    });
  });

  it("names every pipeline it searched when nothing fits", async () => {
    const response = await postModel(server, { ...keplerRequest, trainer_name: "LogisticRegressionTrainer" });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /: 4 AbsPower models for rapl-sysfs in pipelines "aaa", "good", "later", "latest" cover the given features, but none passes trainer_name "LogisticRegressionTrainer" and weight/,
    );
    const acpi = await postModel(server, { ...keplerRequest, source: "acpi" });
    expect(await acpi.text()).toMatch(/: no pipeline holds models for acpi: publish or import one first$/);
  });

  it("serves LinearRegressionTrainer weights (Kepler runs them)", async () => {
    await publishTestArchive(
      server.registry,
      buildTestArchive(linearModel({ pipelineName: "good", trainerName: "LinearRegressionTrainer", maeWatts: 1 })),
    );
    const answer = (await (await postModel(server, { ...keplerRequest, trainer_name: "" })).json()) as Record<string, unknown>;
    expect([answer.model_name, answer.mae]).toEqual(["LinearRegressionTrainer_0", 1]);
  });
  it("prefers a model trained for the requested node type over a lower MAE in another pipeline", async () => {
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "zzz", nodeType: 5, maeWatts: 0.5 })));
    const pick = async (nodeType: number) => {
      const answer = await server.registry.client.selectModel({
        featureNames: BPF,
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "rapl-sysfs",
        trainerName: "SGDRegressorTrainer",
        nodeType,
        metadataOnly: true,
      });
      return [answer.metadata?.location?.pipelineName, answer.metadata?.modelName, answer.selection?.modelMatchesNodeType];
    };
    expect(await pick(0)).toEqual(["aaa", "SGDRegressorTrainer_0", true]);
    expect(await pick(5)).toEqual(["zzz", "SGDRegressorTrainer_5", true]);
    expect(await pick(-1)).toEqual(["zzz", "SGDRegressorTrainer_5", true]);
  });
});
