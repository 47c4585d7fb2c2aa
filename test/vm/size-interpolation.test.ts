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
import { registryModelProvider, type SizeBlend, vmSpec, vmSpecMessage, ZONES } from "../../services/vm-power/index.js";
import { createMatrix, matrixToWasm } from "../../wasm-core/src/index.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";

const PIPELINE = "vm-kepler-0.10";
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
  for (const [cores, model] of Object.entries(SIZES)) {
    const spec = vmSpec(Number(cores), Number(cores) * 2 * 2 ** 30);
    const { nodeType } = await client.client.indexMachine({
      pipelineName: PIPELINE,
      machineId: `vm-${cores}`,
      spec: vmSpecMessage(spec),
    });
    const archive = buildTestArchive({
      pipelineName: PIPELINE,
      energySource: "rapl-sysfs",
      featureGroup: "GuestOSOnly",
      trainerName: "LinearRegressionTrainer",
      nodeType,
      features: FEATURES,
      scale: FEATURES.map(() => 1),
      maeWatts: 1,
      machineSpec: { processor: "vm", cores: Number(cores), chips: 1, memory: Number(cores) * 2, frequency: 1 },
      model: {
        kind: "linear",
        components: ZONES.map((_, z) => ({
          intercept: model.intercept[z]!,
          coefficients: FEATURES.map((f) => (f === "guest_cpu_user_ratio" ? model.slope[z]! : 0)),
        })),
      },
    });
    await publishTestArchive(client, archive);
  }
}, 60_000);

afterAll(async () => {
  client?.close();
  await registry?.close();
  await rm(dir, { recursive: true, force: true });
});

async function wattsFor(vcpus: number, onExtrapolate?: (blend: SizeBlend) => void): Promise<number[]> {
  const spec = vmSpec(vcpus, vcpus * 2 * 2 ** 30);
  const provider = registryModelProvider(
    client,
    { pipelineName: PIPELINE, featureNames: FEATURES, spec },
    createComponentPredictor,
    onExtrapolate,
  );
  const model = await provider.load();
  const names = model.predictor.inputFeatures(model.features);
  const x = matrixToWasm(
    createMatrix(
      1,
      names.length,
      Float64Array.from(names, (n) => (n === "guest_cpu_user_ratio" ? USER_RATIO : 0)),
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
});
