// A VM size no model was trained for, through a real registry: the exporter's registry provider finds the
// pipeline's VM sizes, runs the two trained sizes around the VM's on its features and interpolates their
// watts in the vCPU count; beyond the trained sizes it extrapolates from the two nearest and says so.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GUEST_OS_FEATURES } from "../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import {
  registryModelProvider,
  selectableFeatures,
  type SizeBlend,
  vmSpec,
  vmSpecMessage,
  ZONES,
} from "../../services/vm-power/index.js";
import { createMatrix, matrixToWasm } from "../../wasm-core/src/index.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";

const PIPELINE = "vm-kepler-0.10";
const MIXED_PIPELINE = "vm-mixed-lag";
const LAG = "guest_cpu_user_ratio_lag1";
const FEATURES = [...GUEST_OS_FEATURES].sort();
// watts per zone = intercept + slope x guest_cpu_user_ratio, per trained size
const SIZES = { 4: { intercept: [4, 2, 1, 1], slope: [40, 30, 5, 5] }, 8: { intercept: [8, 4, 2, 2], slope: [80, 60, 10, 10] } };
const USER_RATIO = 0.5;

let dir = "";
let registry: ServerHandle;
let client: ReturnType<typeof createRegistryClient>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "vm-sizes-"));
  registry = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  client = createRegistryClient(registry.address);
  for (const [cores, model] of Object.entries(SIZES)) await publishSize(PIPELINE, Number(cores), model, FEATURES);
  // vm-train keeps the lag columns per size: here the 4-vCPU model takes guest_cpu_user_ratio_lag1, the 8 not.
  await publishSize(MIXED_PIPELINE, 4, SIZES[4], [...FEATURES, LAG].sort());
  await publishSize(MIXED_PIPELINE, 8, SIZES[8], FEATURES);
}, 60_000);

async function publishSize(pipelineName: string, cores: number, model: (typeof SIZES)[4], features: string[]): Promise<void> {
  const spec = vmSpec(cores, cores * 2 * 2 ** 30);
  const { nodeType } = await client.client.indexMachine({
    pipelineName,
    machineId: `vm-${cores}`,
    spec: vmSpecMessage(spec),
  });
  const archive = buildTestArchive({
    pipelineName,
    energySource: "rapl-sysfs",
    featureGroup: "GuestOSOnly",
    trainerName: "LinearRegressionTrainer",
    nodeType,
    features,
    scale: features.map(() => 1),
    maeWatts: 1,
    machineSpec: { processor: "vm", cores, chips: 1, memory: cores * 2, frequency: 1 },
    model: {
      kind: "linear",
      components: ZONES.map((_, z) => ({
        intercept: model.intercept[z]!,
        // The lagged model: the same watts, split between this tick's user ratio and the previous one's.
        coefficients: features.map((f) =>
          f === "guest_cpu_user_ratio" ? model.slope[z]! / (features.includes(LAG) ? 2 : 1) : f === LAG ? model.slope[z]! / 2 : 0,
        ),
      })),
    },
  });
  await publishTestArchive(client, archive);
}

afterAll(async () => {
  client?.close();
  await registry?.close();
  await rm(dir, { recursive: true, force: true });
});

async function wattsFor(vcpus: number, onExtrapolate?: (blend: SizeBlend) => void, pipelineName = PIPELINE): Promise<number[]> {
  const spec = vmSpec(vcpus, vcpus * 2 * 2 ** 30);
  const provider = registryModelProvider(
    client,
    { pipelineName, featureNames: selectableFeatures(FEATURES, false), spec },
    createComponentPredictor,
    onExtrapolate,
  );
  const model = await provider.load();
  const names = model.predictor.inputFeatures(model.features);
  const x = matrixToWasm(
    createMatrix(
      1,
      names.length,
      Float64Array.from(names, (n) => (n === "guest_cpu_user_ratio" || n === LAG ? USER_RATIO : 0)),
    ),
  );
  try {
    const powers = model.predictor.predict(x, names, new Map());
    return ZONES.map((zone) => powers.get(zone)![0]!);
  } finally {
    x.buffer.free();
  }
}

const sizeWatts = (cores: 4 | 8) => ZONES.map((_, z) => SIZES[cores].intercept[z]! + SIZES[cores].slope[z]! * USER_RATIO);

describe("VM sizes between and beyond the trained ones", () => {
  it("a trained size gets its own model, 6 vCPU the halfway watts of 4 and 8, 16 vCPU an extrapolation with a warning", async () => {
    expect(await wattsFor(4)).toEqual(sizeWatts(4));
    const six = await wattsFor(6, () => expect.unreachable("6 vCPU is between trained sizes"));
    six.forEach((w, z) => expect(w).toBeCloseTo((sizeWatts(4)[z]! + sizeWatts(8)[z]!) / 2, 9));
    const warned: SizeBlend[] = [];
    const sixteen = await wattsFor(16, (blend) => warned.push(blend));
    expect(warned).toEqual([{ lower: 4, upper: 8, upperWeight: 3, extrapolating: true }]);
    sixteen.forEach((w, z) => expect(w).toBeCloseTo(sizeWatts(4)[z]! + 3 * (sizeWatts(8)[z]! - sizeWatts(4)[z]!), 9));
  });

  it("blends a size whose model takes the lag columns with one whose model does not, each on its own inputs", async () => {
    expect(await wattsFor(4, undefined, MIXED_PIPELINE)).toEqual(sizeWatts(4).map((w) => expect.closeTo(w, 9)));
    const six = await wattsFor(6, () => expect.unreachable("6 vCPU is between trained sizes"), MIXED_PIPELINE);
    six.forEach((w, z) => expect(w).toBeCloseTo((sizeWatts(4)[z]! + sizeWatts(8)[z]!) / 2, 9));
  });
});
