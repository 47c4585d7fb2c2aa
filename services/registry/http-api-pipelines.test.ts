// Server tests: POST /model and GET /best-models choosing across pipelines when the request names none
// (lowest held-out MAE, ties by pipeline name, node type first).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SelectModelRequest } from "../generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import {
  BPF,
  KEPLER_0712_BODY,
  linearModel,
  postModel,
  startTestRegistry,
  type TestRegistry,
} from "../../test/support/registry-http.js";

describe("selection across pipelines when the request names none", () => {
  let server: TestRegistry;
  beforeAll(async () => {
    server = await startTestRegistry();
  });
  afterAll(async () => {
    await server.close();
  });

  // SelectModel for the BPF features on rapl-sysfs AbsPower, metadata only; `extra` narrows it.
  const selectBpfModel = (extra: Partial<SelectModelRequest> = {}) =>
    server.registry.client.selectModel({
      featureNames: BPF,
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "rapl-sysfs",
      metadataOnly: true,
      ...extra,
    });
  const keplerRequest = { ...JSON.parse(KEPLER_0712_BODY), node_type: -1, machine_spec: null };
  const servedBy = async () =>
    ((await (await postModel(server, keplerRequest)).json()) as { model_name: string; mae: number }).mae;

  it("the better model wins whichever pipeline was published last", async () => {
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "good", maeWatts: 4 })));
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "later", maeWatts: 9 })));
    expect(await servedBy()).toBe(4);
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "latest", maeWatts: 2 })));
    expect(await servedBy()).toBe(2);
    const grpcAnswer = await selectBpfModel();
    expect(grpcAnswer.metadata?.location?.pipelineName).toBe("latest");
    expect(grpcAnswer.selection?.reason).toBe(
      'SGDRegressorTrainer_0 has the lowest held-out MAE (2 W) of 3 candidate models in BPFOnly of pipelines "good", "later", "latest"; trained for any node type (no machine spec)',
    );
  });

  it("breaks an MAE tie by pipeline name", async () => {
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "aaa", maeWatts: 2 })));
    const answer = await selectBpfModel();
    expect(answer.metadata?.location?.pipelineName).toBe("aaa");
  });

  it("GET /best-models applies the same rule", async () => {
    const listed = await server.registry.client.listBestModels({ energySource: "rapl-sysfs" });
    expect(listed.bestModels.map((b) => [b.location?.pipelineName, b.modelName, b.maeWatts])).toEqual([
      ["aaa", "SGDRegressorTrainer_0", 2],
    ]);
    expect(await (await fetch(server.url("/best-models"))).json()).toEqual({
      AbsPower: { BPFOnly: "SGDRegressorTrainer_0" },
      DynPower: {},
    });
  });

  it("names every pipeline it searched when nothing fits", async () => {
    const response = await postModel(server, { ...keplerRequest, trainer_name: "LogisticRegressionTrainer" });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(
      /: 4 AbsPower models for rapl-sysfs in pipelines "aaa", "good", "later", "latest" cover the given features, but none passes trainer_name "LogisticRegressionTrainer" and weight/,
    );
    const acpi = await postModel(server, { ...keplerRequest, source: "acpi" });
    expect(await acpi.text()).toMatch(/: no pipeline holds models for acpi: publish or import one first$/);
  });

  it("serves LinearRegressionTrainer weights (Kepler runs them)", async () => {
    await publishTestArchive(
      server.registry,
      buildTestArchive(linearModel({ pipelineName: "good", trainerName: "LinearRegressionTrainer", maeWatts: 1 })),
    );
    const answer = (await (await postModel(server, { ...keplerRequest, trainer_name: "" })).json()) as Record<string, unknown>;
    expect([answer.model_name, answer.mae]).toEqual(["LinearRegressionTrainer_0", 1]);
  });
  it("prefers a model trained for the requested node type over a lower MAE in another pipeline", async () => {
    await publishTestArchive(server.registry, buildTestArchive(linearModel({ pipelineName: "zzz", nodeType: 5, maeWatts: 0.5 })));
    const pick = async (nodeType: number) => {
      const answer = await selectBpfModel({ trainerName: "SGDRegressorTrainer", nodeType });
      return [answer.metadata?.location?.pipelineName, answer.metadata?.modelName, answer.selection?.modelMatchesNodeType];
    };
    expect(await pick(0)).toEqual(["aaa", "SGDRegressorTrainer_0", true]);
    expect(await pick(5)).toEqual(["zzz", "SGDRegressorTrainer_5", true]);
    expect(await pick(-1)).toEqual(["zzz", "SGDRegressorTrainer_5", true]);
  });
});
