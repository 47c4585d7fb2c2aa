// Feature groups from a recording with only VM energy series (issue 13 row 4), end to end over the real
// services: the coremark recording rewritten as Kepler's VM mode exports it trains, with --vm, the same
// models as the bare-metal recording, over gRPC and through `kepler-model train --vm`.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TrainerResult } from "../../services/generated/kepler/model/v1/trainer_service.js";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { recordedResponseText } from "../support/extractor-fixtures.js";
import { estimateOn, expectWatts, LINEAR } from "../support/linear-group-checks.js";
import { failedResults, runPipelineFailure, runPipelineStream } from "../support/pipeline-runs.js";
import { runCliCaptured } from "../support/run-cli.js";

const mesh = useE2eMesh("feature-groups-vm-");

type SavedDocument = Record<string, Array<{ metric: Record<string, string>; values: unknown[] }>>;

/**
 * The coremark recording as Kepler's VM mode exports it (the reference's use_vm_metrics): energy as
 * `kepler_vm_<component>_joules_total`, features as `kepler_process_<feature>_total` with job="vm" and a
 * `pid` (one per container id, in order of first appearance); the bare-metal series are removed.
 */
function vmRecording(text: string): string {
  const saved = JSON.parse(text) as SavedDocument;
  const pids = new Map<string, string>();
  const out: SavedDocument = {};
  for (const [name, series] of Object.entries(saved)) {
    const energy = /^kepler_node_(.+)_joules_total$/.exec(name);
    const container = /^kepler_container_(.+)_total$/.exec(name);
    if (energy !== null) out[`kepler_vm_${energy[1]}_joules_total`] = series;
    else if (container !== null) {
      out[`kepler_process_${container[1]}_total`] = series.map((entry) => {
        const id = entry.metric.container_id ?? "";
        if (!pids.has(id)) pids.set(id, String(pids.size + 1));
        return { ...entry, metric: { ...entry.metric, job: "vm", pid: pids.get(id)! } };
      });
    } else out[name] = series;
  }
  return JSON.stringify(out);
}

describe("row 4: a recording with only VM energy series (--vm) trains and serves", () => {
  it("pipeline --vm on coremark as VM series gives the bare-metal run's models (same MAE per model), metric_type vm_metrics, served by Estimate", async () => {
    const coremark = recordedResponseText("coremark");
    const vm = vmRecording(coremark);
    expect(
      Object.keys(JSON.parse(vm) as SavedDocument).some(
        (name) => name.startsWith("kepler_node_") && name.endsWith("_joules_total"),
      ),
    ).toBe(false);
    const options = {
      featureGroups: ["CounterOnly"],
      isolator: IsolatorKind.ISOLATOR_KIND_MIN,
      absTrainerNames: [LINEAR, "KNeighborsRegressorTrainer"],
      dynTrainerNames: [LINEAR],
    };
    // Bare-metal mode sees no container series in the VM recording (job="vm" is dropped, as the reference).
    expect(await runPipelineFailure(mesh, { ...options, pipelineName: "vm_as_bm" }, vm)).toEqual([
      "FAILED_PRECONDITION",
      "the data has no node energy series of a known source (rapl-sysfs, acpi, ...)",
    ]);
    const bareMetal = await runPipelineStream(mesh, { ...options, pipelineName: "row4_bm" }, { response: coremark });
    const vmRun = await runPipelineStream(mesh, { ...options, pipelineName: "row4_vm", useVmMetrics: true }, { response: vm });
    expect(failedResults(vmRun)).toEqual([]);
    expect(vmRun.summary).toMatchObject({ succeededCount: 6, failedCount: 0 });
    const key = (r: TrainerResult) => `${r.energySource}/${r.outputType}/${r.featureGroup}/${r.trainerName}`;
    expect(vmRun.results.map(key).sort()).toEqual(bareMetal.results.map(key).sort());
    for (const result of vmRun.results) {
      const twin = bareMetal.results.find((r) => key(r) === key(result))!;
      expect(result.trainRowCount, key(result)).toBe(twin.trainRowCount);
      expect(Math.abs(result.maeWatts - twin.maeWatts), key(result)).toBeLessThanOrEqual(1e-9 * twin.maeWatts);
    }
    const registry = createRegistryClient(mesh.address("registry"));
    try {
      const [metadata] = (await registry.client.listPipelineMetadata({ pipelineNames: ["row4_vm"] })).pipelines;
      expect(JSON.parse(metadata!.metadataJson)).toMatchObject({ name: "row4_vm", metric_type: "vm_metrics" });
    } finally {
      registry.close();
    }
    const row = {
      featureNames: ["cache_miss", "cpu_cycles", "cpu_instructions"],
      rows: [[4e6, 2e9, 2.5e9]],
      trainerName: LINEAR,
    };
    const fromVm = await estimateOn(mesh, { ...row, pipelineName: "row4_vm" });
    const fromBm = await estimateOn(mesh, { ...row, pipelineName: "row4_bm" });
    expect(fromVm.featureGroup).toBe("CounterOnly");
    expect(fromVm.componentPowers.map((c) => c.component)).toEqual(["package", "core", "uncore", "dram"]);
    expect(fromVm.componentPowers[0]!.powerWatts[0]).toBeGreaterThan(0);
    fromVm.componentPowers.forEach((component, i) => expectWatts(component.powerWatts, fromBm.componentPowers[i]!.powerWatts));

    // `kepler-model train --vm` reads the same recording from a file.
    const folder = await mkdtemp(join(tmpdir(), "row4-cli-"));
    try {
      const input = join(folder, "vm.json");
      await writeFile(input, vm);
      const argv = ["train", "--input", input, "--source", "acpi", "--feature-group", "CounterOnly", "--trainers", LINEAR];
      const trained = await runCliCaptured([...argv, "--vm", "--model-path", join(folder, "models")]);
      expect(trained.code, trained.stderr).toBe(0);
      const twin = bareMetal.results.find(
        (r) => r.energySource === "acpi" && r.outputType === OutputType.OUTPUT_TYPE_ABS_POWER && r.trainerName === LINEAR,
      )!;
      expect(trained.stdout).toContain(`LinearRegressionTrainer_0`);
      expect(trained.stdout).toContain(twin.maeWatts.toFixed(2));
      // Without --vm the VM-only recording has no node energy to train on.
      expect((await runCliCaptured([...argv, "--model-path", join(folder, "models")])).code).not.toBe(0);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 300_000);
});
