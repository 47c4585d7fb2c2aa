// Kepler 0.7.12 (through 0.9.0) against the all-in-one server, unchanged: its estimator sidecar client on
// the unix socket and its local regressor's POST /model on the registry's port 8100 get the same watts as
// gRPC Estimate on the same row, within 1e-6 W, for rapl (package, core, uncore, dram) and acpi (platform),
// AbsPower and DynPower, a busy row and the idle call (all-zero row). The collector's side is
// test/support/kepler-collector.ts, written from the wire description; the models are the default
// pipeline trained from the bundled coremark recording.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { type DefaultMeshHandle, startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { keplerPowerRequest, keplerSidecarCall } from "../support/kepler-sidecar-client.js";
import { fetchModelWeights, KEPLER_0712_METRICS, type ModelRequest, predictLikeKepler } from "../support/kepler-collector.js";

/** One sidecar round trip as Kepler makes it; `parsed` is what Kepler's json.Unmarshal of its single read gives. */
async function sidecarCall(
  path: string,
  request: string,
): Promise<{ raw: string; parsed?: { powers: Record<string, number[]>; msg: string } }> {
  const { firstRead } = await keplerSidecarCall(path, request);
  try {
    return { raw: firstRead, parsed: JSON.parse(firstRead) as { powers: Record<string, number[]>; msg: string } };
  } catch {
    return { raw: firstRead };
  }
}

const TOLERANCE_W = 1e-6;
// A busy second of the bundled coremark recording in Kepler 0.7.12's metric order (bpf_cpu_time_ms,
// bpf_page_cache_hit, the three IRQ counts, cpu_cycles, cpu_instructions, cache_miss), per-second rates.
const BUSY_ROW = [20_000, 1_500, 0, 203, 0.33, 50_208_792_167, 83_233_752_901, 15_171_585];
const IDLE_ROW = BUSY_ROW.map(() => 0);
// The machine_spec Kepler 0.7.12 sent in the capture.
const KEPLER_MACHINE = {
  vendor: "authenticamd",
  processor: "amd_epyc",
  cores: 2,
  chips: 1,
  memory: 23,
  frequency: 2600,
  threads_per_core: 1,
};

const CASES = [
  { source: "intel_rapl", outputType: "AbsPower", components: ["package", "core", "uncore", "dram"] },
  { source: "intel_rapl", outputType: "DynPower", components: ["package", "core", "uncore", "dram"] },
  { source: "acpi", outputType: "AbsPower", components: ["platform"] },
  { source: "acpi", outputType: "DynPower", components: ["platform"] },
] as const;

let folder: string;
let mesh: DefaultMeshHandle;
let socketPath: string;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "kepler-collector-"));
  socketPath = join(folder, "estimator.sock");
  mesh = await startMeshWithDefaultModels({
    logger: silentLogger(),
    flags: {
      ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"])),
      "model-path": join(folder, "models"),
      "registry-rescan-ms": "0",
      "estimator-socket": socketPath,
    },
    defaultModels: true,
  });
  expect(mesh.defaultModels?.status).toBe("trained");
});

afterAll(async () => {
  await mesh?.close();
  await rm(folder, { recursive: true, force: true });
});

/** gRPC Estimate on the same rows, as watts per component. */
async function grpcEstimate(
  request: { source: string; outputType: "AbsPower" | "DynPower"; trainerName?: string; machine?: typeof KEPLER_MACHINE },
  rows: number[][],
): Promise<{ powers: Record<string, number[]>; modelName: string }> {
  const estimator = createEstimatorClient(address("estimator"));
  try {
    const response = await estimator.client.estimate({
      featureNames: [...KEPLER_0712_METRICS],
      rowCount: rows.length,
      valueList: rows.flat(),
      outputType: request.outputType === "AbsPower" ? OutputType.OUTPUT_TYPE_ABS_POWER : OutputType.OUTPUT_TYPE_DYN_POWER,
      energySource: request.source,
      systemFeatureNames: ["cpu_architecture"],
      systemFeatureValues: ["unknown"],
      trainerName: request.trainerName ?? "",
      machineSpec:
        request.machine === undefined
          ? undefined
          : {
              vendor: request.machine.vendor,
              processor: request.machine.processor,
              cores: request.machine.cores,
              chips: request.machine.chips,
              memoryGib: request.machine.memory,
              frequencyMhz: request.machine.frequency,
              threadsPerCore: request.machine.threads_per_core,
            },
    });
    return {
      powers: Object.fromEntries(response.componentPowers.map((c) => [c.component, c.powerWatts])),
      modelName: response.modelName,
    };
  } finally {
    estimator.close();
  }
}

function expectSameWatts(actual: Record<string, number[]>, expected: Record<string, number[]>, components: readonly string[]) {
  expect(Object.keys(actual).sort()).toEqual([...components].sort());
  for (const component of components) {
    const got = actual[component] as number[];
    const want = expected[component] as number[];
    expect(got.length, component).toBe(want.length);
    got.forEach((watts, i) =>
      expect(Math.abs(watts - (want[i] as number)), `${component}[${i}]`).toBeLessThanOrEqual(TOLERANCE_W),
    );
  }
}

describe("Kepler 0.7.12 estimator sidecar over the unix socket", () => {
  it("answers the handshake byte for byte as Kepler sent it in the issue's capture", async () => {
    const capture =
      '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss"],"values":[[0,0,0,0,0,0,0,0]],"output_type":"AbsPower","source":"intel_rapl","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';
    const { raw, parsed } = await sidecarCall(socketPath, capture);
    expect(parsed, raw).toBeDefined();
    expect(parsed!.msg).toBe("");
    const expected = await grpcEstimate({ source: "intel_rapl", outputType: "AbsPower" }, [IDLE_ROW]);
    expectSameWatts(parsed!.powers, expected.powers, CASES[0].components);
  });

  for (const testCase of CASES) {
    for (const [label, row] of [
      ["busy", BUSY_ROW],
      ["idle", IDLE_ROW],
    ] as const) {
      it(`${testCase.source} ${testCase.outputType}, ${label} row: the same watts as gRPC Estimate`, async () => {
        const request = keplerPowerRequest({
          metrics: [...KEPLER_0712_METRICS],
          values: [[...row]],
          outputType: testCase.outputType,
          source: testCase.source,
        });
        const { raw, parsed } = await sidecarCall(socketPath, request);
        expect(parsed, raw).toBeDefined();
        expect(parsed!.msg).toBe("");
        const expected = await grpcEstimate({ source: testCase.source, outputType: testCase.outputType }, [[...row]]);
        expectSameWatts(parsed!.powers, expected.powers, testCase.components);
        for (const watts of Object.values(parsed!.powers).flat()) expect(watts).toBeGreaterThanOrEqual(0);
      });
    }
  }
});

describe("Kepler 0.7.12 local regressor with MODEL_SERVER_ENABLE=true (POST /model on the registry's port)", () => {
  for (const testCase of CASES) {
    it(`${testCase.source} ${testCase.outputType}: Kepler's formulas on the served weights equal gRPC Estimate`, async () => {
      const request: ModelRequest = {
        metrics: [...KEPLER_0712_METRICS, "cpu_architecture"],
        output_type: testCase.outputType,
        source: testCase.source,
        node_type: 0,
        weight: true,
        trainer_name: "SGDRegressorTrainer",
        filter: "",
        machine_spec: KEPLER_MACHINE,
      };
      const { status, weights } = await fetchModelWeights(`http://${address("registry")}`, request);
      expect(status).toBe(200);
      // Kepler keeps its configured trainer (SGD: the linear predictor) unless the weights name another.
      const rows = [[...BUSY_ROW], [...IDLE_ROW]];
      const kepler = predictLikeKepler(
        weights!,
        "SGDRegressorTrainer",
        KEPLER_0712_METRICS,
        rows,
        ["cpu_architecture"],
        ["unknown"],
      );
      // Kepler does not clamp (it converts with uint64); the server's answers never go below 0.
      const clamped = Object.fromEntries(Object.entries(kepler).map(([c, watts]) => [c, watts.map((w) => Math.max(0, w))]));
      const expected = await grpcEstimate(
        { source: testCase.source, outputType: testCase.outputType, trainerName: "SGDRegressorTrainer", machine: KEPLER_MACHINE },
        rows,
      );
      expect(expected.modelName).toMatch(/^SGDRegressorTrainer_\d+$/);
      expectSameWatts(clamped, expected.powers, testCase.components);
    });
  }

  it("serves the exact body the issue captured from Kepler 0.7.12", async () => {
    const body =
      '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss","cpu_architecture"],"output_type":"AbsPower","source":"intel_rapl","node_type":0,"weight":true,"trainer_name":"SGDRegressorTrainer","filter":"","machine_spec":{"vendor":"authenticamd","processor":"amd_epyc","cores":2,"chips":1,"memory":23,"frequency":2600,"threads_per_core":1}}';
    const response = await fetch(`http://${address("registry")}/model`, {
      method: "POST",
      headers: { "Content-Type": "application/json; charset=UTF-8" },
      body,
    });
    expect(response.status).toBe(200);
    const weights = (await response.json()) as Record<string, unknown>;
    for (const component of ["package", "core", "uncore", "dram"]) expect(weights[component]).toHaveProperty("All_Weights");
  });
});
