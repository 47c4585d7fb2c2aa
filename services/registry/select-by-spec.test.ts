// Issue 31, item 1: Kepler 0.7.12-0.9 send node_type 0 with their machine spec. With two pipelines (the
// default one, trained here from the coremark recording of a 2-socket Haswell, and ec2-0.7.11 built from
// kepler-model-db weights for a 96-core Xeon), the same Kepler-shaped request by POST /model, by the
// estimator's unix socket and by gRPC must get the same model: the one whose node type's spec is nearest.
// Before the fix POST /model took node type 0 as declared (the Xeon's SGD, idle 63.7 W) while the socket and
// gRPC matched per pipeline (the default pipeline's SGD).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenTable } from "../../test/fixtures/trainer/fixtures.js";
import { createEstimatorClient } from "../estimator/client.js";
import { keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";
import { NodeTypeMatchKind } from "../generated/kepler/model/v1/model.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../mesh/start-mesh.js";
import { zipFolderTree } from "../models/index.js";
import { trainModels } from "../trainer/domain/train-models.js";
import { createRegistryClient } from "./client.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { postJson } from "../../test/support/post-json.js";
import { COLLECTOR_FEATURE_NAMES } from "../mesh/estimate-example.js";

const EC2_FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
// Kepler 0.9's node metrics (kepler-collector §1.3) and its system feature.
const METRICS = [...COLLECTOR_FEATURE_NAMES];
// A 2-core AMD cloud VM, as Kepler's MachineSpec discovery would describe it ("AMD EPYC 7763 64-Core Processor").
const AMD_VM = { processor: "amd_epyc_7763_64_core", cores: 2, chips: 1, memory: 8, frequency: 2450 };
// The coremark recording's machine: a 2-socket Haswell with 32 logical CPUs (test/fixtures/extractor/README.md);
// the recording does not name the processor model, so the index entry assumes an E5-2630 v3.
const HASWELL = { processor: "intel_xeon_e5_2630v3", cores: 32, chips: 2, memory: 64, frequency: 3200 };
const XEON_SGD = "SGDRegressorTrainer_0";

let dir: string;
let mesh: MeshHandle;
let socketPath: string;
let registryAddress: string;
let estimatorAddress: string;
let registryHttpPort: number;

const keplerModelRequest = (machineSpec?: object) => ({
  metrics: [...METRICS, "cpu_architecture"],
  output_type: "AbsPower",
  source: "acpi",
  node_type: 0,
  weight: true,
  trainer_name: "SGDRegressorTrainer",
  filter: "",
  ...(machineSpec === undefined ? {} : { machine_spec: { vendor: "amd", threads_per_core: 1, ...machineSpec } }),
});

const socketRequest = JSON.stringify({
  metrics: METRICS,
  values: [new Array(METRICS.length).fill(0)],
  output_type: "AbsPower",
  source: "acpi",
  system_features: ["cpu_architecture"],
  system_values: ["unknown"],
  trainer_name: "SGDRegressorTrainer",
  filter: "",
});

async function estimateByGrpc(spec: typeof AMD_VM) {
  const estimator = createEstimatorClient(estimatorAddress);
  try {
    return await estimator.client.estimate({
      featureNames: METRICS,
      rowCount: 1,
      valueList: new Array(METRICS.length).fill(0),
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "acpi",
      trainerName: "SGDRegressorTrainer",
      machineSpec: { ...spec, memoryGib: spec.memory, frequencyMhz: spec.frequency, vendor: "", threadsPerCore: 0 },
    });
  } finally {
    estimator.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "select-by-spec-"));
  socketPath = join(dir, "estimator.sock");
  const specFile = join(dir, "spec.json");
  await writeFile(specFile, JSON.stringify(AMD_VM));
  mesh = await startMesh({
    services: ["registry", "estimator"],
    logger: silentLogger(),
    env: { KEPLER_MODEL_ESTIMATOR_SOCKET: socketPath },
    flags: {
      "registry-port": "0",
      "estimator-port": "0",
      "model-path": join(dir, "models"),
      "machine-spec": specFile,
    },
  });
  registryAddress = mesh.servers.find((server) => server.name === "registry")!.address;
  estimatorAddress = mesh.servers.find((server) => server.name === "estimator")!.address;
  registryHttpPort = Number(registryAddress.split(":").pop());
  const registry = createRegistryClient(registryAddress);
  try {
    await importPipelineZip(registry, "ec2-0.7.11", await zipFolderTree(EC2_FIXTURE));
    // The default pipeline: the default trainers on the coremark recording, its machine indexed as node type 0.
    const { nodeType } = await registry.client.indexMachine({
      pipelineName: "default",
      machineId: "kind-control-plane",
      spec: { ...HASWELL, memoryGib: HASWELL.memory, frequencyMhz: HASWELL.frequency, vendor: "", threadsPerCore: 0 },
    });
    expect(nodeType).toBe(0);
    const archives: Parameters<typeof publish>[0][] = [];
    await trainModels(
      {
        table: goldenTable("acpi"),
        energySource: "acpi",
        featureGroup: "CounterOnly",
        outputType: "AbsPower",
        trainerNames: ["LinearRegressionTrainer", "SGDRegressorTrainer"],
        nodeType: 0,
        seed: 1,
        pipelineName: "default",
        machineSpec: HASWELL,
      },
      { publishModel: async (archive) => void archives.push(archive) },
    );
    for (const archive of archives) await publish(archive, registry);
  } finally {
    registry.close();
  }
}, 60_000);

async function publish(
  archive: {
    location: { pipelineName: string; energySource: string; outputType: string; featureGroup: string; modelName: string };
    zip?: Uint8Array;
  },
  registry: ReturnType<typeof createRegistryClient>,
) {
  const zip = archive.zip as Uint8Array;
  await registry.client.publishModel(
    (async function* () {
      yield {
        content: {
          $case: "header" as const,
          value: {
            location: { ...archive.location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER },
            weightJson: "",
            archiveSizeBytes: zip.byteLength,
            archiveSha256: "",
          },
        },
      };
      yield { content: { $case: "archiveChunk" as const, value: Buffer.from(zip) } };
    })(),
  );
}

afterAll(async () => {
  await mesh?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("selection by machine spec, the same on every path", () => {
  it("gives a 2-core AMD machine the model of the nearest node type by POST /model, the socket and gRPC", async () => {
    // Similarity to AMD_VM (reference weights 5/1/1/0.5/0.5 over 8): the Xeon 8259cl, processor characters
    // 7/24 * 0.5 = 0.1458, chips 1-1/1.5, frequency 1-1050/2975, cores and memory 0: 0.1733; the Haswell,
    // processor 5/23 * 0.5 = 0.1087, chips 1/3, frequency 1-750/2825: 0.1555. The Xeon is nearer.
    const http = await postJson(registryHttpPort, "/model", keplerModelRequest(AMD_VM));
    expect(http.status).toBe(200);
    const weights = JSON.parse(http.body) as Record<string, unknown>;
    // Kepler >= 0.7.12 sent a machine spec, so it reads model_name (and the Xeon's spec for its core ratio).
    expect(weights.model_name).toBe(XEON_SGD);
    expect((weights.platform as { All_Weights: { Bias_Weight: number } }).All_Weights.Bias_Weight).toBeCloseTo(
      63.732101547596734,
      12,
    );
    expect(http.headers["x-kepler-model-node-type"]).toBe("ec2-0.7.11/0");
    expect(http.headers["x-kepler-model-node-type-match"]).toBe("similarity");

    const socket = JSON.parse((await keplerSidecarCall(socketPath, socketRequest)).firstRead) as {
      powers: { platform: number[] };
      msg: string;
    };
    expect(socket.msg).toBe("");
    expect(socket.powers.platform[0]).toBeCloseTo(63.732101547596734, 9);

    const grpc = await estimateByGrpc(AMD_VM);
    expect(grpc.modelName).toBe(XEON_SGD);
    expect(grpc.modelLocation?.pipelineName).toBe("ec2-0.7.11");
    expect(grpc.componentPowers[0]?.powerWatts[0]).toBeCloseTo(63.732101547596734, 9);
    const match = grpc.selection?.nodeTypeMatch;
    expect(match?.kind).toBe(NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_SIMILARITY);
    expect(match?.pipelineName).toBe("ec2-0.7.11");
    expect(match?.similarity).toBeCloseTo(0.17325367647058823, 12);
    expect(match?.reason).toBe(
      'node type 0 of pipeline "ec2-0.7.11" is the most similar to the machine spec (similarity 0.173) (the best of 2 pipelines\' indexes)',
    );
  });

  it("gives the coremark machine the default pipeline's model on every path (an exact cover)", async () => {
    const http = await postJson(registryHttpPort, "/model", keplerModelRequest(HASWELL));
    expect(http.status).toBe(200);
    expect(http.headers["x-kepler-model-node-type"]).toBe("default/0");
    expect(http.headers["x-kepler-model-node-type-match"]).toBe("exact");
    const weights = JSON.parse(http.body) as { model_name: string; platform: { All_Weights: { Bias_Weight: number } } };
    expect(weights.model_name).toBe("SGDRegressorTrainer_0");
    const grpc = await estimateByGrpc(HASWELL);
    expect(grpc.modelLocation?.pipelineName).toBe("default");
    expect(grpc.modelName).toBe("SGDRegressorTrainer_0");
    expect(grpc.selection?.nodeTypeMatch?.kind).toBe(NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_EXACT);
    // Both paths run the same weights: the idle estimate is the weight.json bias.
    expect(grpc.componentPowers[0]?.powerWatts[0]).toBeCloseTo(weights.platform.All_Weights.Bias_Weight, 9);
    expect(weights.platform.All_Weights.Bias_Weight).not.toBeCloseTo(63.732101547596734, 1);
  });

  it("Estimate returns split-conformal intervals from the model's held-out residuals, unary and stream", async () => {
    const registry = createRegistryClient(registryAddress);
    const estimator = createEstimatorClient(estimatorAddress);
    try {
      const listed = await registry.client.listModels({ pipelineName: "default", trainerName: "SGDRegressorTrainer" });
      const metadata = JSON.parse(listed.models[0]!.metadataJson) as { calibration: { abs_residuals: { platform: number[] } } };
      const sorted = metadata.calibration.abs_residuals.platform;
      expect(sorted).toHaveLength(19); // ceil(0.1 * 187) test rows
      expect(listed.models[0]?.hasCalibration).toBe(true);
      // The order statistic at level * (n + 1), interpolated, by hand.
      const halfWidth = (level: number) => {
        const position = level * (sorted.length + 1);
        const k = Math.floor(position);
        return k >= sorted.length ? sorted.at(-1)! : sorted[k - 1]! + (position - k) * (sorted[k]! - sorted[k - 1]!);
      };
      const request = {
        featureNames: METRICS,
        rowCount: 2,
        valueList: [...new Array(METRICS.length).fill(0), ...METRICS.map((_, i) => (i < 3 ? 1e9 : 0))],
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "acpi",
        trainerName: "SGDRegressorTrainer",
        machineSpec: { ...HASWELL, memoryGib: HASWELL.memory, frequencyMhz: HASWELL.frequency, vendor: "", threadsPerCore: 0 },
      };
      const byDefault = await estimator.client.estimate(request);
      expect(byDefault.intervalLevel).toBe(0.9);
      const platform = byDefault.componentPowers[0]!;
      expect(platform.intervalHalfWidthWatts).toBeCloseTo(halfWidth(0.9), 9);
      platform.powerWatts.forEach((watts, row) => {
        expect(platform.upperWatts[row]).toBeCloseTo(watts + halfWidth(0.9), 9);
        expect(platform.lowerWatts[row]).toBeCloseTo(Math.max(0, watts - halfWidth(0.9)), 9);
      });
      const half = await estimator.client.estimate({ ...request, intervalLevel: 0.5 });
      expect(half.intervalLevel).toBe(0.5);
      expect(half.componentPowers[0]!.intervalHalfWidthWatts).toBeCloseTo(halfWidth(0.5), 9);
      expect(halfWidth(0.5)).toBeLessThan(halfWidth(0.9));
      const streamed: number[] = [];
      for await (const answer of estimator.client.estimateStream(
        (async function* () {
          yield { requestId: "a", estimate: { ...request, intervalLevel: 0.8 } };
          yield { requestId: "b", estimate: { ...request, intervalLevel: 1.5 } };
        })(),
      )) {
        if (answer.result?.$case === "estimate") streamed.push(answer.result.value.componentPowers[0]!.intervalHalfWidthWatts);
        else
          expect(answer.result?.value).toMatchObject({
            code: 3,
            message: "estimate.interval_level: must be strictly between 0 and 1 (e.g. 0.9 for 90 %), got 1.5",
          });
      }
      expect(streamed).toHaveLength(1);
      expect(streamed[0]).toBeCloseTo(halfWidth(0.8), 9);
    } finally {
      registry.close();
      estimator.close();
    }
  });

  it("without a spec, node type 0 as declared and the lowest held-out MAE of both pipelines (the documented default)", async () => {
    const http = await postJson(registryHttpPort, "/model", keplerModelRequest());
    expect(http.status).toBe(200);
    // Without a machine spec (Kepler <= 0.7.11 shape) the body stays a plain component map.
    const weights = JSON.parse(http.body) as Record<string, unknown>;
    expect(Object.keys(weights)).toEqual(["platform"]);
    expect(http.headers["x-kepler-model-node-type-match"]).toBe("requested");
    const registry = createRegistryClient(registryAddress);
    try {
      const grpc = await registry.client.selectModel({
        featureNames: [...METRICS, "cpu_architecture"],
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "acpi",
        nodeType: 0,
        trainerName: "SGDRegressorTrainer",
        weight: true,
      });
      expect(grpc.payload?.$case === "weightJson" && JSON.parse(grpc.payload.value)).toEqual(weights);
      const defaultSgd = await registry.client.listModels({ pipelineName: "default", trainerName: "SGDRegressorTrainer" });
      const defaultMae = defaultSgd.models[0]?.heldOutMaeWatts as number;
      // ec2-0.7.11's acpi SGD states mae 9.7 (made-up fixture value); the default SGD's held-out MAE decides.
      expect(grpc.metadata?.location?.pipelineName).toBe(defaultMae < 9.7 ? "default" : "ec2-0.7.11");
      expect(grpc.selection?.nodeTypeMatch?.reason).toBe("node type 0 as requested");
    } finally {
      registry.close();
    }
  });
});
