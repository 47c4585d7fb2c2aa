// The plan of a run: its tables in order (AbsPower then DynPower per source x feature group), which waits
// for which, where idle profiles come from and the totals progress counts towards.
import { describe, expect, it } from "vitest";
import type { PipelineRunOptions } from "./pipeline-options.js";
import { planPipeline } from "./pipeline-plan.js";

const options: PipelineRunOptions = {
  pipelineName: "p",
  energySources: [],
  featureGroups: [],
  extractor: "default",
  isolator: "trainer",
  targetHints: [],
  backgroundHints: [],
  absPipelineName: "p",
  absTrainerNames: ["A", "B"],
  dynTrainerNames: ["C"],
  data: { kind: "inline", response: new Uint8Array() },
  seed: 0,
  useVmMetrics: false,
  thirdPartyMetricNames: ["qat_requests"],
};
const targets = { sources: ["rapl-sysfs", "acpi"] as const, groups: ["BPFOnly", "ThirdParty"] as const };
const fromData = { nodeType: -1, kind: "data" } as const;

describe("planPipeline", () => {
  it("plans AbsPower then DynPower per source x feature group; the trainer isolator's DynPower waits for its AbsPower", () => {
    const plan = planPipeline(options, targets, fromData);
    const tables = plan.tables.map(
      (t) => `${t.energySource}/${t.featureGroup}/${t.outputType} ${t.steps.join(">")} ${t.waitsFor ?? "-"}`,
    );
    expect(tables).toEqual([
      "rapl-sysfs/BPFOnly/AbsPower extract>train -",
      "rapl-sysfs/BPFOnly/DynPower extract>isolate>train 0",
      "rapl-sysfs/ThirdParty/AbsPower extract>train -",
      "rapl-sysfs/ThirdParty/DynPower extract>isolate>train 2",
      "acpi/BPFOnly/AbsPower extract>train -",
      "acpi/BPFOnly/DynPower extract>isolate>train 4",
      "acpi/ThirdParty/AbsPower extract>train -",
      "acpi/ThirdParty/DynPower extract>isolate>train 6",
    ]);
    expect(plan.totals).toEqual({ extract: 8, isolate: 4, train: 12 });
    expect(plan.nodeType).toBeUndefined();
    expect(plan.probeLevel).toBe("node");
    // ThirdParty models use the third-party metrics as features; the other groups their fixed list.
    expect(plan.tables[2]!.featureNames).toEqual(["qat_requests"]);
    expect(plan.tables[0]!.featureNames).toEqual([]);
  });

  it("without AbsPower trainers: DynPower tables only, none waiting, probed at container level", () => {
    const plan = planPipeline({ ...options, absTrainerNames: [], isolator: "min" }, targets, { nodeType: 3, kind: "requested" });
    expect(plan.tables.map((t) => [t.outputType, t.waitsFor])).toEqual(Array(4).fill(["DynPower", undefined]));
    expect(plan).toMatchObject({ nodeType: 3, probeLevel: "container", totals: { extract: 4, isolate: 4, train: 4 } });
  });

  it("builds idle profiles from idle data for the profile isolator, reads stored ones without, ignores idle data otherwise", () => {
    const idleData = { kind: "inline", response: new Uint8Array() } as const;
    const profile = { ...options, isolator: "profile" } as const;
    expect(planPipeline({ ...profile, idleData }, targets, fromData)).toMatchObject({
      profiles: "build",
      idleDataIgnored: false,
    });
    expect(planPipeline(profile, targets, fromData)).toMatchObject({ profiles: "stored", idleDataIgnored: false });
    expect(planPipeline({ ...options, idleData }, targets, fromData)).toMatchObject({ profiles: "none", idleDataIgnored: true });
    // Without DynPower trainers nothing is isolated, so no profile is needed.
    expect(planPipeline({ ...profile, dynTrainerNames: [], idleData }, targets, fromData)).toMatchObject({ profiles: "none" });
  });
});
