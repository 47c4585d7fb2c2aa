// The ThirdParty feature group (issue 13 row 1), end to end over the real services: a synthesized
// recording (test/support/linear-recording.ts) with custom container and node metrics goes in as
// RunPipeline response chunks; SelectModel, ListBestModels and Estimate serve the ThirdParty model only to
// callers that send its metrics, and the trainer isolator uses its AbsPower models.
import { describe, expect, it } from "vitest";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { estimateOn, expectWatts, LINEAR, trainAndCheckLinear } from "../support/linear-group-checks.js";
import { INTERCEPT, type LinearPower, linearRecording, linearWatts } from "../support/linear-recording.js";
import { failedResults, runPipelineStream } from "../support/pipeline-runs.js";

const mesh = useE2eMesh("feature-groups-third-party-");

describe("row 1: ThirdParty models are selected when the request covers their metrics", () => {
  // A container-level custom counter and a node-level custom gauge (no container labels), besides Kepler's
  // BPF counters. Power is linear in the two custom metrics only, so the ThirdParty model fits exactly and
  // beats the BPFOnly model whenever the caller can feed it.
  const thirdParty = ["app_requests_total", "node_fan_rpm"];
  const power: LinearPower = { intercept: INTERCEPT, weights: { app_requests_total: 0.05, node_fan_rpm: 0.01 } };
  const recording = linearRecording(
    [
      { feature: "bpf_cpu_time_ms", metric: "kepler_container_bpf_cpu_time_ms_total", scale: 900 },
      { feature: "bpf_page_cache_hit", metric: "kepler_container_bpf_page_cache_hit_total", scale: 50 },
      { feature: "app_requests_total", metric: "app_requests_total", scale: 300 },
    ],
    power,
    [{ feature: "node_fan_rpm", metric: "node_fan_rpm", series: [{ fan: "1" }], scale: 2000 }],
  );
  const collector = ["cpu_cycles", "cpu_instructions", "cache_miss", "bpf_cpu_time_ms", "bpf_page_cache_hit"];

  it("trains ThirdParty beside BPFOnly; SelectModel, ListBestModels and Estimate serve it", async () => {
    const run = await trainAndCheckLinear(mesh, "ThirdParty", "groups_thirdparty", recording, power, thirdParty, {
      thirdPartyMetricNames: thirdParty,
    });
    expect(run.results.every((r) => r.featureGroup === "ThirdParty")).toBe(true);
    const bpf = await runPipelineStream(
      mesh,
      {
        pipelineName: "groups_thirdparty",
        energySources: ["rapl-sysfs"],
        featureGroups: ["BPFOnly"],
        absTrainerNames: [LINEAR],
        thirdPartyMetricNames: thirdParty,
      },
      { response: recording.text },
    );
    expect(failedResults(bpf)).toEqual([]);
    expect(bpf.results[0]!.maeWatts).toBeGreaterThan(0.5);

    const registry = createRegistryClient(mesh.address("registry"));
    try {
      const select = (featureNames: string[]) =>
        registry.client.selectModel({
          featureNames,
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
          energySource: "rapl-sysfs",
          pipelineName: "groups_thirdparty",
          metadataOnly: true,
        });
      const covered = await select([...collector, ...thirdParty]);
      expect(covered.selection?.featureGroup).toBe("ThirdParty");
      expect(covered.selection?.validFeatureGroups).toEqual(["CounterOnly", "BPFOnly", "Basic", "ThirdParty"]);
      expect(covered.metadata?.maeWatts).toBe(0);
      // Without the custom metrics the caller cannot feed the ThirdParty model: BPFOnly serves.
      const uncovered = await select([...collector, "app_requests_total"]);
      expect(uncovered.selection?.featureGroup).toBe("BPFOnly");
      expect(uncovered.selection?.validFeatureGroups).toEqual(["CounterOnly", "BPFOnly", "Basic"]);

      const best = await registry.client.listBestModels({ energySource: "rapl-sysfs", pipelineName: "groups_thirdparty" });
      expect(best.bestModels.map((b) => [b.outputType, b.featureGroup])).toEqual([
        [OutputType.OUTPUT_TYPE_ABS_POWER, "BPFOnly"],
        [OutputType.OUTPUT_TYPE_ABS_POWER, "ThirdParty"],
        [OutputType.OUTPUT_TYPE_DYN_POWER, "ThirdParty"],
      ]);
    } finally {
      registry.close();
    }

    // Estimate with Kepler's metrics plus the custom ones, in any order, picks ThirdParty by MAE.
    const names = [...collector, ...thirdParty];
    const values: Record<string, number> = { ...recording.nodeValue(9), cpu_cycles: 1, cpu_instructions: 1, cache_miss: 1 };
    const response = await estimateOn(mesh, {
      pipelineName: "groups_thirdparty",
      featureNames: names,
      rows: [names.map((n) => values[n]!)],
    });
    expect(response.featureGroup).toBe("ThirdParty");
    const pkg = response.componentPowers.find((c) => c.component === "package")!;
    expectWatts(pkg.powerWatts, [linearWatts(power, "package", values)]);
  }, 180_000);

  it("the trainer isolator removes background power with the ThirdParty AbsPower models", async () => {
    // Runs after the test above published groups_thirdparty's AbsPower models.
    const run = await runPipelineStream(
      mesh,
      {
        pipelineName: "groups_thirdparty_trainer",
        energySources: ["rapl-sysfs"],
        featureGroups: ["ThirdParty"],
        isolator: IsolatorKind.ISOLATOR_KIND_TRAINER,
        absPipelineName: "groups_thirdparty",
        dynTrainerNames: [LINEAR],
        thirdPartyMetricNames: thirdParty,
      },
      { response: recording.text },
    );
    expect(failedResults(run)).toEqual([]);
    expect(run.results.map((r) => [r.featureGroup, r.outputType])).toEqual([["ThirdParty", OutputType.OUTPUT_TYPE_DYN_POWER]]);
    // No hints: no container is background, so the chosen model's idle prediction (the fitted intercept) is
    // removed from exactly linear data, and the DynPower model fits it exactly too.
    expect(Math.round(run.results[0]!.maeWatts * 100) / 100).toBe(0);
  }, 120_000);
});
