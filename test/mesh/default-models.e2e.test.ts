// The embedded default over real gRPC: all six services in one process on port 0 over an empty temporary
// MODEL_PATH train the default pipeline from the bundled recording through RunPipeline before the estimator
// starts; Estimate then answers the printed example with exactly what Kepler's regressor computes from the
// published weight.json. A folder that holds models is left alone, and --no-default-models trains nothing.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import type { ModelMetadata } from "../../services/generated/kepler/model/v1/model.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { DEFAULT_PIPELINE_OPTIONS, type DefaultModelsEvent } from "../../services/mesh/default-models.js";
import {
  COLLECTOR_FEATURE_NAMES,
  EXAMPLE_ESTIMATE_REQUEST,
  EXAMPLE_FEATURE_VALUES,
} from "../../services/mesh/estimate-example.js";
import { type DefaultMeshHandle, startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { spawnNode } from "../support/child-process.js";

const PORTS = Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"]));
const PORT_FLAGS = [...SERVICE_NAMES.flatMap((name) => [`--${name}-port`, "0"]), "--metrics-port", "0"];
const folders: string[] = [];
const meshes: DefaultMeshHandle[] = [];

afterEach(async () => {
  for (const mesh of meshes.splice(0)) await mesh.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function start(modelPath: string, defaultModels: boolean, events: DefaultModelsEvent[] = []): Promise<DefaultMeshHandle> {
  const mesh = await startMeshWithDefaultModels({
    logger: silentLogger(),
    flags: { ...PORTS, "model-path": modelPath, "registry-rescan-ms": "0" },
    defaultModels,
    onDefaultModelsEvent: (event) => events.push(event),
  });
  meshes.push(mesh);
  return mesh;
}

async function emptyFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "default-models-"));
  folders.push(folder);
  return folder;
}

const address = (mesh: DefaultMeshHandle, name: string) => mesh.servers.find((server) => server.name === name)!.address;

async function listModels(mesh: DefaultMeshHandle): Promise<ModelMetadata[]> {
  const registry = createRegistryClient(address(mesh, "registry"));
  try {
    return (await registry.client.listModels({})).models;
  } finally {
    registry.close();
  }
}

/** Kepler's regressor on weight.json: bias + sum(value / scale * weight) over the model's features. */
function keplerLinearPrediction(weights: unknown, component: string, values: Record<string, number>): number {
  const all = (
    weights as Record<
      string,
      { All_Weights: { Bias_Weight: number; Numerical_Variables: Record<string, { scale: number; weight: number }> } }
    >
  )[component]!.All_Weights;
  return Object.entries(all.Numerical_Variables).reduce(
    (sum, [name, { scale, weight }]) => sum + (values[name]! / scale) * weight,
    all.Bias_Weight,
  );
}

describe("the embedded default: npm start on an empty model folder", () => {
  it("trains the default pipeline before the estimator starts; Estimate answers the example as Kepler's regressor would", async () => {
    const modelPath = await emptyFolder();
    const events: DefaultModelsEvent[] = [];
    const mesh = await start(modelPath, true, events);
    expect(mesh.servers.map((server) => server.name)).toEqual(SERVICE_NAMES);

    // 2 sources x 2 valid feature groups x 2 output types x 2 trainers, all published.
    expect(mesh.defaultModels).toMatchObject({
      status: "trained",
      summary: { pipelineName: "default", succeededCount: 16, failedCount: 0 },
    });
    const results = events.flatMap((event) => (event.kind === "result" ? [event.result] : []));
    expect(results).toHaveLength(16);
    expect(events.filter((event) => event.kind === "progress").length).toBeGreaterThan(16);

    const models = await listModels(mesh);
    expect(models).toHaveLength(16);
    const combos = models.map(
      (m) =>
        `${m.location?.energySource}/${m.outputType === OutputType.OUTPUT_TYPE_ABS_POWER ? "AbsPower" : "DynPower"}/${m.location?.featureGroup}/${m.trainerName}`,
    );
    const expected = DEFAULT_PIPELINE_OPTIONS.energySources.flatMap((source) =>
      ["AbsPower", "DynPower"].flatMap((output) =>
        ["CounterOnly", "CounterIRQCombined"].flatMap((group) =>
          DEFAULT_PIPELINE_OPTIONS.trainerNames.map((trainer) => `${source}/${output}/${group}/${trainer}`),
        ),
      ),
    );
    expect(combos.sort()).toEqual(expected.sort());
    expect(models.every((m) => m.hasWeights && m.location?.pipelineName === "default")).toBe(true);

    const estimator = createEstimatorClient(address(mesh, "estimator"));
    try {
      const request = EstimateRequest.fromJSON(EXAMPLE_ESTIMATE_REQUEST);
      const values = Object.fromEntries(COLLECTOR_FEATURE_NAMES.map((name, i) => [name, EXAMPLE_FEATURE_VALUES[i]!]));
      for (const [source, measured] of [
        ["intel_rapl", { package: 188.18433333312473, core: 0, uncore: 0, dram: 49.79566666608056 }],
        ["acpi", { platform: 364 }],
      ] as const) {
        const response = await estimator.client.estimate({ ...request, energySource: source });
        const location = response.modelLocation!;
        expect(location.pipelineName).toBe("default");
        // The lowest-MAE AbsPower model of the source is chosen.
        const candidates = models.filter(
          (m) => m.location?.energySource === location.energySource && m.outputType === OutputType.OUTPUT_TYPE_ABS_POWER,
        );
        expect(response.modelMaeWatts).toBe(Math.min(...candidates.map((m) => m.maeWatts)));
        const weights = JSON.parse(
          await readFile(
            join(
              modelPath,
              "default",
              location.energySource,
              "AbsPower",
              location.featureGroup,
              location.modelName,
              "weight.json",
            ),
            "utf8",
          ),
        );
        expect(response.componentPowers.map((c) => c.component)).toEqual(Object.keys(measured));
        for (const { component, powerWatts } of response.componentPowers) {
          const expectedWatts = Math.max(0, keplerLinearPrediction(weights, component, values));
          expect(powerWatts[0]).toBeCloseTo(expectedWatts, 9);
          // Within twice the model's MAE of what the hardware measured for this very second.
          expect(Math.abs(powerWatts[0]! - (measured as Record<string, number>)[component]!)).toBeLessThanOrEqual(
            2 * response.modelMaeWatts,
          );
        }
      }
    } finally {
      estimator.close();
    }
  }, 120_000);

  it("leaves a folder that holds models alone, and trains nothing with defaultModels off", async () => {
    const modelPath = await emptyFolder();
    const first = await start(modelPath, true);
    expect(first.defaultModels?.status).toBe("trained");
    const published = (await listModels(first)).map((m) => m.publishedTimeSeconds);
    await first.close();
    meshes.splice(meshes.indexOf(first), 1);

    const again = await start(modelPath, true);
    expect(again.defaultModels).toEqual({ status: "skipped", existingModelCount: 1 });
    // Nothing was published again: every model keeps its publish time (reloaded from disk, to the file's mtime).
    const reloaded = (await listModels(again)).map((m) => m.publishedTimeSeconds);
    expect(reloaded).toHaveLength(published.length);
    reloaded.forEach((seconds, i) => expect(Math.abs(seconds - published[i]!)).toBeLessThan(0.05));

    const off = await start(await emptyFolder(), false);
    expect(off.defaultModels).toBeUndefined();
    expect(await listModels(off)).toEqual([]);
    const estimator = createEstimatorClient(address(off, "estimator"));
    try {
      const error = await estimator.client.estimate(EstimateRequest.fromJSON(EXAMPLE_ESTIMATE_REQUEST)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientError);
      expect((error as ClientError).code).toBe(Status.FAILED_PRECONDITION);
    } finally {
      estimator.close();
    }
  }, 120_000);

  it("does not train when the training services are not all in this process", async () => {
    const alone = await startMeshWithDefaultModels({
      services: ["registry", "estimator"],
      logger: silentLogger(),
      flags: { ...PORTS, "model-path": await emptyFolder() },
      defaultModels: true,
    });
    meshes.push(alone);
    expect(alone.servers.map((server) => server.name)).toEqual(["registry", "estimator"]);
    expect(alone.defaultModels).toBeUndefined();
  }, 120_000);
});

describe("kepler-model serve with the default training", () => {
  it("SIGTERM while the default models train cancels the training and exits 0", async () => {
    const modelPath = await emptyFolder();
    const serve = spawnNode(["bin/kepler-model.js", "serve", "--model-path", modelPath, "--log-level", "warn", ...PORT_FLAGS]);
    try {
      await serve.waitForOutput(/^No models in .*: training the default models/m);
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
      expect(serve.output()).not.toContain("Default models ready");
      expect(serve.output()).not.toContain("services listening");
    } finally {
      if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
    }
  });
});
