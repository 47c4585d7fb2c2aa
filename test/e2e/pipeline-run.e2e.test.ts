// End to end over real gRPC: a real Prometheus backfilled with the recorded coremark data, all six services
// in one process on 127.0.0.1 port 0 over a temporary MODEL_PATH. RunPipeline reads the live window and
// trains every trainer the trainer service implements for rapl-sysfs and acpi with the min and none
// isolators; the registry then holds models for every valid feature group, and Estimate with the Kepler
// collector's metric names returns watts inside the observed power range from the lowest-MAE model. The
// tests after the first read its models (what the other options do: pipeline-options.e2e.test.ts).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { beforeAll, expect, it, vi } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { NodeTypeMatchKind } from "../../services/generated/kepler/model/v1/model.js";
import { RunPipelineOptions as RunPipelineOptionsMessage } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { TrainOutcome } from "../../services/generated/kepler/model/v1/trainer_service.js";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { COLLECTOR_METRICS, collectorRows } from "../support/collector-rows.js";
import {
  COREMARK_FEATURE_GROUPS as FEATURE_GROUPS,
  COREMARK_MACHINE as MACHINE,
  COREMARK_SOURCES as SOURCES,
  useCoremarkPrometheus,
} from "../support/coremark-prometheus.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { recordedResponseText } from "../support/extractor-fixtures.js";
import { expectModelsOfRun, expectPipelineFolder, expectTablesInStreamOrder } from "../support/pipeline-run-checks.js";
import { listPipelineModels, type PipelineRun, runPipelineStream } from "../support/pipeline-runs.js";
import { describeWithPrometheus } from "../support/prometheus.js";

const prometheus = useCoremarkPrometheus();
const mesh = useE2eMesh("pipeline-e2e-", () => prometheus.baseUrl);
let trainerNames: string[];

beforeAll(async () => {
  const trainer = createTrainerClient(mesh.address("trainer"));
  trainerNames = (await trainer.client.listTrainers({})).trainers.map((t) => t.trainerName);
  trainer.close();
});

describeWithPrometheus("pipeline end to end: Prometheus -> extractor -> isolator -> trainer -> registry -> estimator", () => {
  let minRun: PipelineRun;

  it("trains every implemented trainer for both sources and every valid feature group (min isolator)", async () => {
    expect(trainerNames.length).toBeGreaterThanOrEqual(7);
    minRun = await runPipelineStream(mesh, {
      pipelineName: "e2e_min",
      energySources: [...SOURCES],
      isolator: IsolatorKind.ISOLATOR_KIND_MIN,
      absTrainerNames: trainerNames,
      dynTrainerNames: trainerNames,
      window: prometheus.liveWindow(),
      machineSpec: MACHINE,
      machineId: "coremark-host",
    });
    const expectedCount = SOURCES.length * FEATURE_GROUPS.length * 2 * trainerNames.length;
    const failed = minRun.results.filter((r) => r.outcome !== TrainOutcome.TRAIN_OUTCOME_SUCCEEDED);
    expect(failed.map((r) => `${r.energySource}/${r.featureGroup}/${r.trainerName}: ${r.failureReason}`)).toEqual([]);
    expect(minRun.summary).toMatchObject({ pipelineName: "e2e_min", succeededCount: expectedCount, failedCount: 0 });
    expect(minRun.summary.nodeTypeMatch).toMatchObject({ nodeType: 0, kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_EXACT });

    // Every published model is in the registry, at its location, with the MAE the trainer measured.
    const models = await listPipelineModels(mesh, "e2e_min");
    expect(models).toHaveLength(expectedCount);
    expectModelsOfRun(models, minRun, { sources: SOURCES, featureGroups: FEATURE_GROUPS, nodeType: 0, machine: MACHINE });

    // Progress covered every stage; the train counter reached its total.
    expect([...new Set(minRun.progress.map((p) => p.stage))]).toEqual([
      "query",
      "extract",
      "train",
      "publish",
      "isolate",
      "metadata",
    ]);
    const lastTrain = minRun.progress.filter((p) => p.stage === "train").at(-1);
    expect(lastTrain).toMatchObject({ done: expectedCount, total: expectedCount });

    expectTablesInStreamOrder(minRun, trainerNames, SOURCES.length * FEATURE_GROUPS.length * 2);

    // metadata.json and node_type_index.json, written through the registry.
    await expectPipelineFolder(join(mesh.modelPath, "e2e_min"), minRun, SOURCES, 2 * trainerNames.length);
    const metadata = JSON.parse(minRun.summary.metadataJson);
    // The isolator each source and feature group actually got.
    expect(Object.values(metadata.isolators).every((name) => name === "min")).toBe(true);
    expect(Object.keys(metadata.isolators).length).toBeGreaterThan(0);
    expect(metadata).toMatchObject({
      name: "e2e_min",
      isolator: "min",
      extractor: "default",
      abs_trainers: trainerNames,
      dyn_trainers: trainerNames,
      metric_type: "bm_metrics",
    });
    const index = JSON.parse(await readFile(join(mesh.modelPath, "e2e_min", "node_type_index.json"), "utf8"));
    expect(index["0"]).toMatchObject({ members: ["coremark-host"] });
  }, 600_000);

  for (const [source, collectorSource, csv, components] of [
    ["rapl-sysfs", "intel_rapl", "extract_abs_rapl-sysfs_CounterIRQCombined.csv", ["package", "core", "uncore", "dram"]],
    ["acpi", "acpi", "extract_abs_acpi_CounterIRQCombined.csv", ["platform"]],
  ] as const) {
    it(`Estimate (${collectorSource}) with the collector's metric names picks the lowest-MAE model and stays in the observed range`, async () => {
      expect(minRun).toBeDefined();
      // Feature rows as Kepler sends them: per-second rates of the recorded coremark run (reference extraction).
      const rows = collectorRows(csv, COLLECTOR_METRICS);
      const estimator = createEstimatorClient(mesh.address("estimator"));
      try {
        const response = await estimator.client.estimate({
          featureNames: COLLECTOR_METRICS,
          unavailableFeatureNames: rows.unavailable,
          rowCount: rows.rowCount,
          values: Buffer.from(rows.values.buffer),
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
          energySource: collectorSource,
          systemFeatureNames: ["cpu_architecture"],
          systemFeatureValues: ["unknown"],
          machineSpec: MACHINE,
          pipelineName: "e2e_min",
        });
        // The chosen model is the lowest-MAE AbsPower model of the source over both valid groups, and the
        // MAE the estimator reports is the one in its metadata.
        const candidates = (await listPipelineModels(mesh, "e2e_min")).filter(
          (m) => m.location?.energySource === source && m.outputType === OutputType.OUTPUT_TYPE_ABS_POWER,
        );
        expect(candidates).toHaveLength(FEATURE_GROUPS.length * trainerNames.length);
        const lowest = Math.min(...candidates.map((m) => m.maeWatts));
        const chosen = candidates.find(
          (m) => m.modelName === response.modelName && m.location?.featureGroup === response.featureGroup,
        );
        expect(chosen).toBeDefined();
        expect(response.modelMaeWatts).toBe(chosen?.maeWatts);
        expect(response.modelMaeWatts).toBe(lowest);
        expect(JSON.parse(chosen?.metadataJson ?? "{}").mae).toBe(response.modelMaeWatts);
        expect(response.modelLocation).toMatchObject({ pipelineName: "e2e_min", energySource: source });
        console.info(`Estimate ${source}: ${response.featureGroup}/${response.modelName}, MAE ${response.modelMaeWatts} W`);
        expect(response.rowCount).toBe(rows.rowCount);
        expect(response.componentPowers.map((c) => c.component)).toEqual(components);
        for (const { component, powerWatts } of response.componentPowers) {
          const observed = rows.column(`${component}_power`);
          const low = Math.min(...observed);
          const high = Math.max(...observed);
          expect(powerWatts).toHaveLength(rows.rowCount);
          for (const watts of powerWatts) {
            expect(watts, component).toBeGreaterThanOrEqual(low);
            expect(watts, component).toBeLessThanOrEqual(high);
          }
        }
      } finally {
        estimator.close();
      }
    });
  }

  it("none isolator: a trainer the trainer service rejects mid-pipeline fails alone; every other model is published", async () => {
    expect(minRun).toBeDefined();
    // The unknown name sits between real trainers: the calls before and after it must be unaffected.
    const requested = [...trainerNames.slice(0, 2), "NoSuchTrainer", ...trainerNames.slice(2)];
    const run = await runPipelineStream(mesh, {
      pipelineName: "e2e_none",
      energySources: [...SOURCES],
      isolator: IsolatorKind.ISOLATOR_KIND_NONE,
      dynTrainerNames: requested,
      window: prometheus.liveWindow(),
    });
    const pairs = SOURCES.length * FEATURE_GROUPS.length;
    const failed = run.results.filter((r) => r.outcome === TrainOutcome.TRAIN_OUTCOME_FAILED);
    expect(failed).toHaveLength(pairs);
    for (const result of failed) {
      expect(result.trainerName).toBe("NoSuchTrainer");
      expect(result.failureReason).toMatch(/^trainer: trainer_names\[0\]: unknown trainer "NoSuchTrainer" \(known: /);
      expect(result.publishedLocation).toBeUndefined();
    }
    expect(run.summary).toMatchObject({ succeededCount: pairs * trainerNames.length, failedCount: pairs });
    expect(run.summary.nodeTypeMatch).toMatchObject({ nodeType: -1, kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_NONE });
    const failedProgress = run.progress.filter((p) => p.stage === "train" && p.message.startsWith("failed: "));
    expect(failedProgress.map((p) => p.subject.split("/").at(-1))).toEqual(Array(pairs).fill("NoSuchTrainer"));

    const models = await listPipelineModels(mesh, "e2e_none");
    expect(models).toHaveLength(pairs * trainerNames.length);
    expect(models.every((m) => m.outputType === OutputType.OUTPUT_TYPE_DYN_POWER)).toBe(true);
    expect([...new Set(models.map((m) => m.trainerName))].sort()).toEqual([...trainerNames].sort());
    const metadata = JSON.parse(run.summary.metadataJson);
    expect(metadata).toMatchObject({ name: "e2e_none", isolator: "none", abs_trainers: [], dyn_trainers: trainerNames });

    // The none isolator only squeezes containers into node rows: its DynPower table is the node table, so
    // each DynPower model matches the AbsPower model of the min run (same rows, same seeded split), to the
    // stored two decimals.
    const absModels = new Map(
      (await listPipelineModels(mesh, "e2e_min"))
        .filter((m) => m.outputType === OutputType.OUTPUT_TYPE_ABS_POWER)
        .map((m) => [`${m.location?.energySource}/${m.location?.featureGroup}/${m.modelName}`, m.maeWatts]),
    );
    for (const model of models) {
      const name = `${model.location?.energySource}/${model.location?.featureGroup}/${model.modelName}`;
      // Up to float summation order (per-container sums vs node sums): measured differences are below
      // 1e-3 W for the curve fits and 0.005 W for XgboostFit, whose split thresholds see the last bits.
      expect(Math.abs(model.maeWatts - (absModels.get(name) ?? Number.NaN)), name).toBeLessThanOrEqual(0.02);
    }
  }, 600_000);

  it("StartOnlinePipeline / GetPipeline / ListPipelines / StopOnlinePipeline over gRPC", async () => {
    const pipeline = createPipelineClient(mesh.address("pipeline"));
    try {
      const options = RunPipelineOptionsMessage.fromPartial({
        pipelineName: "e2e_live",
        absTrainerNames: ["LinearRegressionTrainer"],
        window: prometheus.liveWindow(),
      });
      const { status } = await pipeline.client.startOnlinePipeline({ options, intervalSeconds: 3600, lookbackSeconds: 0 });
      expect(status).toMatchObject({ pipelineName: "e2e_live", running: true, intervalSeconds: 3600, runCount: 0 });
      const again = await pipeline.client
        .startOnlinePipeline({ options, intervalSeconds: 3600, lookbackSeconds: 0 })
        .catch((e) => e);
      expect(again).toBeInstanceOf(ClientError);
      expect((again as ClientError).code).toBe(Status.ALREADY_EXISTS);
      expect((again as ClientError).details).toBe('pipeline "e2e_live" already runs online: stop it first');

      // The recording is a day old: the last hour of this Prometheus holds no Kepler samples.
      await vi.waitFor(
        async () =>
          expect((await pipeline.client.getPipeline({ pipelineName: "e2e_live" })).online?.lastRunTimeSeconds).toBeGreaterThan(0),
        { timeout: 60_000, interval: 50 },
      );
      const live = await pipeline.client.getPipeline({ pipelineName: "e2e_live" });
      expect(live.online).toMatchObject({ running: true, runCount: 0, skippedRunCount: 0 });
      expect(live.online?.lastError).not.toBe("");
      expect(live.pipeline?.modelCount).toBe(0);

      const listed = await pipeline.client.listPipelines({});
      expect(listed.pipelines.map((p) => p.pipelineName)).toEqual(expect.arrayContaining(["e2e_min", "e2e_none"]));
      expect(listed.onlinePipelines.map((p) => [p.pipelineName, p.running])).toEqual([["e2e_live", true]]);
      const min = await pipeline.client.getPipeline({ pipelineName: "e2e_min" });
      expect(min.pipeline?.modelCount).toBe(SOURCES.length * FEATURE_GROUPS.length * 2 * trainerNames.length);
      expect(JSON.parse(min.pipeline?.metadataJson ?? "{}").name).toBe("e2e_min");
      expect(min.nodeTypes.map((t) => [t.nodeType, t.members, t.spec?.processor])).toEqual([
        [0, ["coremark-host"], MACHINE.processor],
      ]);
      expect(min.online).toBeUndefined();

      const stopped = await pipeline.client.stopOnlinePipeline({ pipelineName: "e2e_live" });
      expect(stopped.status).toMatchObject({ pipelineName: "e2e_live", running: false });
      const missing = await pipeline.client.stopOnlinePipeline({ pipelineName: "e2e_live" }).catch((e) => e);
      expect((missing as ClientError).code).toBe(Status.NOT_FOUND);
      const unknown = await pipeline.client.getPipeline({ pipelineName: "nope" }).catch((e) => e);
      expect((unknown as ClientError).code).toBe(Status.NOT_FOUND);
      expect((unknown as ClientError).details).toBe('pipeline "nope" not found');
    } finally {
      pipeline.close();
    }
  }, 120_000);

  it("profile isolator with inline idle data beside a live window, and the trainer isolator over the min run's models", async () => {
    expect(minRun).toBeDefined();
    const common = {
      energySources: ["rapl-sysfs"],
      featureGroups: ["CounterOnly"],
      dynTrainerNames: ["LinearRegressionTrainer"],
      window: prometheus.liveWindow(),
    };
    const profile = await runPipelineStream(
      mesh,
      { ...common, pipelineName: "e2e_profile", isolator: IsolatorKind.ISOLATOR_KIND_PROFILE },
      { idle: recordedResponseText("idle") },
    );
    expect(profile.summary).toMatchObject({ succeededCount: 1, failedCount: 0 });
    expect(profile.progress.filter((p) => p.stage === "profile").map((p) => p.message)).toEqual([
      "building idle profiles",
      "4 idle profiles",
    ]);
    expect(profile.progress.find((p) => p.stage === "isolate" && p.done === 1)?.message).toBe("187 rows (profile)");
    expect(JSON.parse(profile.summary.metadataJson).isolator).toBe("profile");

    const trainer = await runPipelineStream(mesh, {
      ...common,
      pipelineName: "e2e_trainer",
      isolator: IsolatorKind.ISOLATOR_KIND_TRAINER,
      absPipelineName: "e2e_min",
    });
    expect(trainer.summary).toMatchObject({ succeededCount: 1, failedCount: 0 });
    expect(trainer.progress.find((p) => p.stage === "isolate" && p.done === 1)?.message).toBe("187 rows (trainer)");
    // The isolator's notices reach the summary, prefixed with the group (how many rows had a predicted
    // background above node power depends on the AbsPower model chosen by the 0.7 correlation rule).
    for (const notice of trainer.summary.notices) {
      expect(notice).toMatch(
        /^rapl-sysfs\/CounterOnly: \d+ rows had a predicted background above node power; their dynamic power was clamped at 0$/,
      );
    }
  }, 120_000);
});
