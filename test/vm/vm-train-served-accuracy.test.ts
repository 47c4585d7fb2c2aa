// The acceptance case end to end: `kepler-model vm-train` with its defaults on the Kepler 0.10 attribution
// test bed's two training hours (seed 7, big host; the 6-vCPU VM left out), published to a real registry;
// then each VM's model as the exporter gets it (its registry provider: SelectModel for the VM's spec and the
// features it can feed, the 6-vCPU VM interpolated between the 4- and 8-vCPU models) run on the held-out
// half hour of mixed workloads: package MAPE < 10 % against Kepler's attributed watts for every size.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getColumn } from "../../services/domain/data-table.js";
import { featuresOf } from "../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { addLaggedColumns, registryModelProvider, selectableFeatures, vmSpec } from "../../services/vm-power/index.js";
import {
  buildVmTrainingTable,
  DEFAULT_VM_MAPPING,
  type VmQueryResults,
} from "../../services/vm-power/training/vm-training-table.js";
import { createMatrix, matrixToWasm, meanAbsolutePercentageError } from "../../wasm-core/src/index.js";
import { runCliCaptured } from "../support/run-cli.js";
import {
  ATTRIBUTION_SCENARIOS,
  ATTRIBUTION_VMS,
  generateAttributionRecording,
  UNSEEN_SIZE_VM,
} from "./support/kepler-attribution-testbed.js";

const START = 1_700_000_000;
const STEP = 5;
const GROUP_FEATURES = featuresOf("GuestOSOnly");

let dir = "";
let registry: ServerHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "vm-train-served-"));
  registry = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  await registry?.close();
  await rm(dir, { recursive: true, force: true });
});

function window(results: VmQueryResults, from: number, to: number, keep = (_vm: string | undefined) => true): VmQueryResults {
  return Object.fromEntries(
    Object.entries(results).map(([key, list]) => [
      key,
      list
        .filter((s) => keep(s.metric.vm_name ?? s.metric.instance?.replace(/:\d+$/, "")))
        .map((s) => ({ metric: s.metric, values: s.values.filter(([t]) => t >= from && t < to) })),
    ]),
  );
}

describe("vm-train's defaults, served as the exporter gets them", () => {
  it("package MAPE < 10 % on held-out workloads for every trained size and the unseen 6-vCPU size", async () => {
    const recording = generateAttributionRecording({
      seed: 7,
      scenario: ATTRIBUTION_SCENARIOS[0]!,
      startSeconds: START,
      trainSeconds: 7200,
      heldOutSeconds: 1800,
      stepSeconds: STEP,
    });
    const training = window(recording.results, START, recording.heldOutFromSeconds, (vm) => vm !== UNSEEN_SIZE_VM);
    await writeFile(join(dir, "answers.json"), JSON.stringify(training));
    const run = await runCliCaptured(["vm-train", "--input", join(dir, "answers.json"), "--registry-address", registry.address]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);

    const heldOut = await buildVmTrainingTable(
      window(recording.results, recording.heldOutFromSeconds - STEP, Number.POSITIVE_INFINITY),
      { mapping: DEFAULT_VM_MAPPING, featureGroup: "GuestOSOnly", nodeTypeOf: async (_machine, spec) => Number(spec.cores) },
    );
    const client = createRegistryClient(registry.address);
    try {
      const mape = new Map<number, number>();
      for (const group of heldOut.nodeTypes) {
        const table = addLaggedColumns(group, GROUP_FEATURES).table;
        const vm = ATTRIBUTION_VMS.find((v) => v.vcpus === group.nodeType)!;
        const model = await registryModelProvider(
          client,
          {
            pipelineName: "vm-kepler-0.10",
            featureNames: selectableFeatures(GROUP_FEATURES, false),
            spec: vmSpec(vm.vcpus, vm.memoryGiB * 2 ** 30),
          },
          createComponentPredictor,
        ).load();
        const names = model.predictor.inputFeatures(model.features);
        const values = new Float64Array(table.rowCount * names.length);
        names.forEach((name, j) => values.set(getColumn(table, name), j * table.rowCount));
        const x = matrixToWasm(createMatrix(table.rowCount, names.length, values));
        try {
          const watts = model.predictor.predict(x, names, new Map());
          mape.set(group.nodeType, meanAbsolutePercentageError(getColumn(table, "package_power"), watts.get("package")!));
        } finally {
          x.buffer.free();
        }
      }
      expect([...mape.keys()].sort((a, b) => a - b)).toEqual([2, 4, 6, 8]);
      for (const [vcpus, value] of mape) expect(value, `${vcpus} vCPU package MAPE`).toBeLessThan(10);
    } finally {
      client.close();
    }
  }, 180_000);
});
