// Server tests of the unix-socket estimator: a real registry (the ec2 fixture pipeline plus DynPower
// models published through PublishModel) and a real estimator listening on gRPC and on a socket.
// Kepler's side is reproduced by test/support/kepler-sidecar-client.ts; every power is checked against
// gRPC Estimate on the same row.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type Server, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { createRegistryClient } from "../registry/client.js";
import { readRegistryConfig } from "../registry/config.js";
import { startRegistry } from "../registry/main.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { createEstimatorClient } from "./client.js";
import { readEstimatorConfig } from "./config.js";
import { startEstimator } from "./main.js";
import {
  KEPLER_0712_METRICS,
  KEPLER_READ_BYTES,
  keplerMilliwatts,
  keplerPowerRequest,
  keplerSidecarCall,
} from "../../test/support/kepler-sidecar-client.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { zipFolderTree } from "../models/index.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
// Kepler 0.7.12's sidecar PowerRequest for the idle call, byte for byte (issue 12).
const KEPLER_0_7_12_IDLE =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss"],"values":[[0,0,0,0,0,0,0,0]],"output_type":"AbsPower","source":"intel_rapl","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';
const METRICS_0_7_12 = [...KEPLER_0712_METRICS];
const BUSY_ROW = [5210.33, 420, 12, 15.67, 3, 314660758.667, 830713763.667, 12722920.333];
const COMPONENTS = { intel_rapl: ["package", "core", "uncore", "dram"], acpi: ["platform"] } as const;

let dir: string;
let socketPath: string;
let registryHandle: Awaited<ReturnType<typeof startRegistry>>;
let estimatorHandle: Awaited<ReturnType<typeof startEstimator>>;
let registry: ReturnType<typeof createRegistryClient>;
let estimator: ReturnType<typeof createEstimatorClient>;

function dynPowerModel(energySource: "rapl-sysfs" | "acpi", intercepts: number[]) {
  return buildTestArchive({
    pipelineName: "ec2-fixture",
    energySource,
    outputType: "DynPower",
    featureGroup: "BPFOnly",
    trainerName: "LinearRegressionTrainer",
    nodeType: 0,
    features: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
    scale: [4000, 50],
    maeWatts: 3,
    model: { kind: "linear", components: intercepts.map((intercept) => ({ intercept, coefficients: [80, 2] })) },
    machineSpec: { processor: "intel_xeon_platinum_8259cl", cores: 96, chips: 2, memory: 377, frequency: 3500 },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "estimator-socket-"));
  socketPath = join(dir, "estimator.sock");
  registryHandle = await startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(registryHandle.address);
  const imported = await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
  expect(imported.importedModelCount).toBe(3);
  await publishTestArchive(registry, dynPowerModel("rapl-sysfs", [12, -5, 1.5, 4]));
  await publishTestArchive(registry, dynPowerModel("acpi", [20]));
  estimatorHandle = await startEstimator(
    {
      ...readEstimatorConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      estimatorSocket: socketPath,
    },
    { logger: silentLogger() },
  );
  estimator = createEstimatorClient(estimatorHandle.address);
});

afterAll(async () => {
  estimator.close();
  registry.close();
  await estimatorHandle.close();
  await registryHandle.close();
  await rm(dir, { recursive: true, force: true });
});

/** gRPC Estimate on the same rows and query as the socket request (own machine, no pipeline). */
async function grpcPowers(request: string): Promise<{ powers: Record<string, number[]>; coreRatio: number }> {
  const fields = JSON.parse(request) as {
    metrics: string[];
    values: number[][];
    output_type: string;
    source: string;
    system_features: string[];
    system_values: string[];
  };
  const response = await estimator.client.estimate({
    featureNames: fields.metrics,
    rowCount: fields.values.length,
    values: Buffer.from(Float64Array.from(fields.values.flat()).buffer),
    valueList: [],
    outputType: fields.output_type === "AbsPower" ? OutputType.OUTPUT_TYPE_ABS_POWER : OutputType.OUTPUT_TYPE_DYN_POWER,
    energySource: fields.source,
    systemFeatureNames: fields.system_features,
    systemFeatureValues: fields.system_values,
    trainerName: "",
    filter: "",
    unavailableFeatureNames: [],
    pipelineName: "",
  });
  return {
    powers: Object.fromEntries(response.componentPowers.map((c) => [c.component, c.powerWatts])),
    coreRatio: response.coreRatio,
  };
}

/** One Kepler call that must succeed: the single read holds the whole response, which decodes. */
async function keplerPowers(request: string | string[]) {
  const exchange = await keplerSidecarCall(socketPath, request);
  expect(exchange.firstRead).toBe(exchange.allBytes);
  expect(exchange.firstRead.length).toBeLessThanOrEqual(KEPLER_READ_BYTES);
  const decoded = JSON.parse(exchange.firstRead) as { powers: Record<string, number[]>; msg: string; core_ratio: number };
  expect(decoded.msg).toBe("");
  return { ...decoded, text: exchange.firstRead };
}

async function expectStillServing(): Promise<void> {
  const { powers } = await keplerPowers(KEPLER_0_7_12_IDLE);
  expect(Object.keys(powers)).toEqual(["package", "core", "uncore", "dram"]);
}

describe("unix-socket estimator: Kepler 0.7.12's sidecar calls", () => {
  it("answers the exact idle request with gRPC Estimate's watts, in json.dumps' text", async () => {
    const expected = await grpcPowers(KEPLER_0_7_12_IDLE);
    const got = await keplerPowers(KEPLER_0_7_12_IDLE);
    expect(Object.keys(got.powers)).toEqual(["package", "core", "uncore", "dram"]);
    for (const component of COMPONENTS.intel_rapl) {
      const watts = got.powers[component] as number[];
      expect(watts).toHaveLength(1);
      expect(Math.abs((watts[0] as number) - (expected.powers[component]?.[0] as number))).toBeLessThan(1e-6);
    }
    expect(got.core_ratio).toBe(expected.coreRatio);
    expect(got.text).toMatch(
      /^\{"powers": \{"package": \[[0-9.e+-]+\], "core": \[[0-9.e+-]+\], "uncore": \[[0-9.e+-]+\], "dram": \[[0-9.e+-]+\]\}, "msg": "", "core_ratio": [0-9.e+-]+\}$/,
    );
    // The fixture's SGD weights: package idle = Bias_Weight (kepler-collector §2.4).
    expect(got.powers.package?.[0]).toBeCloseTo(143.81206324506658, 9);
  });

  for (const source of ["intel_rapl", "acpi"] as const) {
    for (const outputType of ["AbsPower", "DynPower"] as const) {
      for (const [label, row] of [
        ["idle", [0, 0, 0, 0, 0, 0, 0, 0]],
        ["busy", BUSY_ROW],
      ] as const) {
        it(`${source} ${outputType} ${label} row: equals gRPC Estimate within 1e-6 W`, async () => {
          const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: [[...row]], outputType, source });
          const expected = await grpcPowers(request);
          const got = await keplerPowers(request);
          expect(Object.keys(got.powers)).toEqual([...COMPONENTS[source]]);
          for (const component of COMPONENTS[source]) {
            const watts = got.powers[component] as number[];
            const want = expected.powers[component] as number[];
            expect(watts).toHaveLength(1);
            expect(Math.abs((watts[0] as number) - (want[0] as number))).toBeLessThan(1e-6);
            expect(watts[0]).toBeGreaterThanOrEqual(0);
          }
        });
      }
    }
  }

  it("answers a 100-row process request within one 4096-byte read, with the milliwatts Kepler would get from gRPC", async () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i * 37.3 + 0.123456789, i * 3.1, 0, 0, 0, 1e6 * i, 2e6 * i, 1e4 * i]);
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: rows, outputType: "DynPower", source: "intel_rapl" });
    const expected = await grpcPowers(request);
    const got = await keplerPowers(request);
    for (const component of COMPONENTS.intel_rapl) {
      const want = expected.powers[component] as number[];
      expect(got.powers[component]).toHaveLength(100);
      expect(keplerMilliwatts(got.powers[component] as number[])).toEqual(keplerMilliwatts(want));
      const idleRatio = Math.min(got.core_ratio, 1);
      expect(keplerMilliwatts(got.powers[component] as number[], idleRatio)).toEqual(keplerMilliwatts(want, idleRatio));
    }
  });

  it("answers a request whose response cannot fit in one read with an error that fails Kepler's decode", async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [i * 37.3 + 0.123456789, i, 0, 0, 0, 0, 0, 0]);
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: rows, outputType: "DynPower", source: "intel_rapl" });
    const exchange = await keplerSidecarCall(socketPath, request);
    expect(exchange.firstRead).toBe(exchange.allBytes);
    expect(exchange.firstRead).toMatch(
      /^\{"powers": \[\], "msg": "the response for 1000 rows is \d+ bytes even at milliwatt precision; Kepler reads at most 4096 bytes: send fewer rows per request"\}$/,
    );
    await expectStillServing();
  });

  it("answers Kepler v0.5's total-power call (model_name, no source) with a plain list of platform watts", async () => {
    const v05 = JSON.stringify({
      metrics: METRICS_0_7_12,
      values: [BUSY_ROW],
      output_type: "AbsPower",
      system_features: ["cpu_architecture"],
      system_values: ["unknown"],
      model_name: "",
      filter: "",
    });
    const expected = await grpcPowers(
      keplerPowerRequest({ metrics: METRICS_0_7_12, values: [BUSY_ROW], outputType: "AbsPower", source: "acpi" }),
    );
    const exchange = await keplerSidecarCall(socketPath, v05);
    const decoded = JSON.parse(exchange.firstRead) as { powers: number[]; msg: string };
    expect(exchange.firstRead).toMatch(/^\{"powers": \[[0-9.e+-]+\], "msg": ""\}$/);
    expect(Math.abs((decoded.powers[0] as number) - (expected.powers.platform?.[0] as number))).toBeLessThan(1e-6);
  });

  it("reads a request split over several writes", async () => {
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: [BUSY_ROW], outputType: "AbsPower", source: "acpi" });
    const whole = await keplerPowers(request);
    const split = await keplerPowers([request.slice(0, 5), request.slice(5, 200), request.slice(200)]);
    expect(split.text).toBe(whole.text);
  });
});

describe("unix-socket estimator: bad input gets an error response or a closed connection, and serving goes on", () => {
  const call = (request: string | string[]) => keplerSidecarCall(socketPath, request);

  it("malformed JSON", async () => {
    const broken = '{"metrics": ]}';
    let v8Message = "";
    try {
      // The object is framed at the ']' that closes depth 1, so that much is parsed.
      JSON.parse('{"metrics": ]');
    } catch (error) {
      v8Message = (error as Error).message;
    }
    // The reason quotes V8's parse error, escaped as json.dumps escapes it (ASCII: the same as JSON.stringify).
    expect((await call(broken)).allBytes).toBe(
      `{"powers": {}, "msg": ${JSON.stringify(`request: not valid JSON (${v8Message})`)}}`,
    );
    expect((await call("hello")).allBytes).toBe(
      `{"powers": {}, "msg": "request: not valid JSON (expected a JSON object starting with '{')"}`,
    );
    await expectStillServing();
  });

  it("a request that ends before its JSON is whole", async () => {
    const exchange = await new Promise<string>((resolve, reject) => {
      const socket = connect(socketPath);
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(chunks).toString()));
      socket.end('{"metrics": ["bpf_cpu_time_ms"');
    });
    expect(exchange).toBe('{"powers": {}, "msg": "request: the connection ended before a whole JSON object was sent"}');
    await expectStillServing();
  });

  it("a 10 MB request", async () => {
    const huge = `{"metrics": ["${"x".repeat(10 * 1024 * 1024)}"]}`;
    expect((await call(huge)).allBytes).toBe('{"powers": [], "msg": "request: larger than the 4194304-byte limit"}');
    await expectStillServing();
  });

  it("an unknown source", async () => {
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: [BUSY_ROW], outputType: "AbsPower", source: "nvidia" });
    expect((await call(request)).allBytes).toBe(
      '{"powers": {}, "msg": "source: unknown energy source \\"nvidia\\" (known: rapl-sysfs, rapl-msr, acpi, hmc, redfish, trained_power_model; aliases: rapl, intel_rapl)"}',
    );
    await expectStillServing();
  });

  it("an error on a multi-row request is a list, so Kepler's process path skips it instead of indexing an empty map", async () => {
    const request = keplerPowerRequest({
      metrics: METRICS_0_7_12,
      values: [BUSY_ROW, BUSY_ROW],
      outputType: "AbsPower",
      source: "nvidia",
    });
    expect((await call(request)).allBytes).toMatch(/^\{"powers": \[\], "msg": "source: unknown energy source \\"nvidia\\"/);
  });
});

describe("unix-socket estimator: start and stop", () => {
  const start = (path: string, registryAddress = registryHandle.address) =>
    startEstimator(
      { ...readEstimatorConfig({}), host: "127.0.0.1", port: 0, registryAddress, estimatorSocket: path },
      { logger: silentLogger(), socketLimits: { estimateDeadlineMs: 500, idleTimeoutMs: 300 } },
    );

  it("disconnects a client that connects and says nothing after the idle timeout, and goes on serving", async () => {
    const path = join(dir, "idle.sock");
    const handle = await start(path);
    try {
      expect((await keplerSidecarCall(path, [])).allBytes).toBe("");
      const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
      expect(JSON.parse(exchange.allBytes)).toHaveProperty("msg", "");
    } finally {
      await handle.close();
    }
  });

  it("removes a stale socket file left by a killed estimator, and its own file on close", async () => {
    const path = join(dir, "stale.sock");
    const killed = spawnSync(process.execPath, [
      "-e",
      `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
    ]);
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(path)).toBe(true);
    const handle = await start(path);
    const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
    expect(JSON.parse(exchange.allBytes)).toHaveProperty("msg", "");
    await handle.close();
    expect(existsSync(path)).toBe(false);
  });

  it("refuses to take over a socket a live server answers on, or a file that is not a socket", async () => {
    const path = join(dir, "live.sock");
    const live: Server = createServer();
    await new Promise<void>((resolve) => live.listen(path, resolve));
    await expect(start(path)).rejects.toThrow(
      `--estimator-socket: another server is listening on ${path}; stop it or choose another path`,
    );
    await new Promise<void>((resolve) => live.close(() => resolve()));
    const file = join(dir, "plain-file");
    await writeFile(file, "keep me");
    await expect(start(file)).rejects.toThrow(`--estimator-socket: ${file} exists and is not a socket; not replacing it`);
    expect(existsSync(file)).toBe(true);
  });

  it("answers within the deadline when the registry accepts connections but never answers", async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address() as { port: number };
    const path = join(dir, "deadline.sock");
    const handle = await start(path, `127.0.0.1:${address.port}`);
    try {
      const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
      expect(exchange.allBytes).toBe(
        '{"powers": {}, "msg": "estimator: no estimate within 500 ms (model registry slow or unreachable)"}',
      );
    } finally {
      await handle.close();
      silent.close();
    }
  });

  it("answers an error when no registry listens", async () => {
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const path = join(dir, "no-registry.sock");
    const handle = await start(path, `127.0.0.1:${port}`);
    try {
      const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
      expect(exchange.allBytes).toBe(
        `{"powers": {}, "msg": "registry: UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:${port}. Resolution note: "}`,
      );
    } finally {
      await handle.close();
    }
  });
});
