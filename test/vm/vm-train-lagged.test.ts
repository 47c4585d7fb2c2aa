// vm-train's lagged features (on by default) on the Kepler-attribution test bed's answers: each trainer is
// trained with and without `<feature>_lag1`, and the model published to the real registry is the one the
// output names (lagged models carry the lag columns in their features, the others do not).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { runCliCaptured } from "../support/run-cli.js";
import { ATTRIBUTION_SCENARIOS, generateAttributionRecording, UNSEEN_SIZE_VM } from "./support/kepler-attribution-testbed.js";
import { useScratchRegistry } from "../support/scratch-registry.js";

const scratch = useScratchRegistry("vm-train-lagged-");

/** The attribution bed's answers for `scenario`: seed 7, every 5 s for `trainSeconds` from 1.7e9 s, nothing held out. */
const recordingOf = (scenario: (typeof ATTRIBUTION_SCENARIOS)[number], trainSeconds: number) =>
  generateAttributionRecording({
    seed: 7,
    scenario,
    startSeconds: 1_700_000_000,
    trainSeconds,
    heldOutSeconds: 0,
    stepSeconds: 5,
  });

/** vm-train GuestOSOnly on the answers in <dir>/<answersFile>, publishing to the registry; it must succeed quietly. */
async function vmTrain(answersFile: string, flags: readonly string[]): Promise<string> {
  const run = await runCliCaptured([
    ...["vm-train", "--input", join(scratch.dir, answersFile), "--feature-groups", "GuestOSOnly"],
    ...[...flags, "--registry-address", scratch.registry.address],
  ]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return run.stdout;
}

/** The GuestOSOnly AbsPower models the registry holds in `pipelineName`. */
async function publishedModels(pipelineName: string) {
  const client = createRegistryClient(scratch.registry.address);
  try {
    const request = { pipelineName, featureGroup: "GuestOSOnly", outputType: OutputType.OUTPUT_TYPE_ABS_POWER };
    return (await client.client.listModels(request)).models;
  } finally {
    client.close();
  }
}

describe("vm-train's lagged features", () => {
  it("by default publishes per trainer and size the variant with the lower test MAE, features as the output says", async () => {
    const recording = recordingOf(ATTRIBUTION_SCENARIOS[0]!, 7200);
    // The unseen size stays unseen: its series are left out of the answers.
    const results = Object.fromEntries(
      Object.entries(recording.results).map(([key, list]) => [
        key,
        list.filter((s) => s.metric.vm_name !== UNSEEN_SIZE_VM && s.metric.instance !== `${UNSEEN_SIZE_VM}:9100`),
      ]),
    );
    await writeFile(join(scratch.dir, "answers.json"), JSON.stringify(results));
    const stdout = await vmTrain("answers.json", ["--trainers", "LinearRegressionTrainer,SGDRegressorTrainer"]);
    expect(stdout).toContain("6 of 6 models published to pipeline vm-kepler-0.10");
    // Kepler's sampling lags the guests' here: the lag lowers LinearRegression's test MAE at every size.
    expect(stdout.match(/LinearRegressionTrainer \(\+lag1\)/g)).toHaveLength(3);
    const models = await publishedModels("vm-kepler-0.10");
    expect(models).toHaveLength(6);
    for (const model of models) {
      const trainer = model.modelName.replace(/_\d+$/, "");
      const row = stdout
        .split("\n")
        .find((line) => line.includes(` ${model.modelName.split("_").pop()} (`) && line.includes(trainer));
      expect(row, model.modelName).toBeDefined();
      const lagged = row?.includes(`${trainer} (+lag1)`) ?? false;
      expect(
        model.features.some((f) => f.endsWith("_lag1")),
        `${model.modelName}: ${row}`,
      ).toBe(lagged);
    }
  }, 120_000);

  it("--host-context-cpus trains with the host-context features, which the published models take", async () => {
    const recording = recordingOf(ATTRIBUTION_SCENARIOS[1]!, 3600);
    await writeFile(join(scratch.dir, "host-answers.json"), JSON.stringify(recording.results));
    const stdout = await vmTrain("host-answers.json", [
      ...["--trainers", "LinearRegressionTrainer", "--host-context-cpus", "96", "--pipeline", "vm-host-context"],
    ]);
    expect(stdout).toContain("4 of 4 models published to pipeline vm-host-context");
    const models = await publishedModels("vm-host-context");
    expect(models).toHaveLength(4);
    for (const model of models)
      expect(model.features).toEqual(expect.arrayContaining(["guest_host_package_watts", "guest_host_dram_watts"]));
  }, 120_000);
});
