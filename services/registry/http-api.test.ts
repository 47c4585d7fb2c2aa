// Server tests: the reference model server's HTTP API (POST /model, GET /best-models) on a real
// registry's gRPC port (127.0.0.1:0), with the ec2 fixture pipeline imported, called the way Kepler
// 0.7.12 calls it; gRPC clients on the same port at the same time; and bad input of every kind.
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { readZip } from "../models/index.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { zipFolderTree } from "../models/index.js";
import {
  BPF,
  expectServing,
  FIXTURE,
  fixtureFile,
  fixtureJson,
  KEPLER_0712_BODY,
  linearModel,
  postModel,
  rawExchange,
  SILENT_TIMEOUT_MS,
  startTestRegistry,
  type TestRegistry,
} from "../../test/support/registry-http.js";

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
