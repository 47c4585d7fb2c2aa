// End to end over real gRPC: a real Prometheus backfilled with the recorded coremark data, all six services
// in one process on 127.0.0.1 port 0 over a temporary MODEL_PATH. RunPipeline reads the live window and
// trains every trainer the trainer service implements for rapl-sysfs and acpi with the min and none
// isolators; the registry then holds models for every valid feature group, and Estimate with the Kepler
// collector's metric names returns watts inside the observed power range from the lowest-MAE model.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { ModelMetadata } from "../../services/generated/kepler/model/v1/model.js";
import { NodeTypeMatchKind } from "../../services/generated/kepler/model/v1/model.js";
import type { RunPipelineOptions, RunPipelineResponse } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { RunPipelineOptions as RunPipelineOptionsMessage } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { type TrainerResult, TrainOutcome } from "../../services/generated/kepler/model/v1/trainer_service.js";
import type { ProgressEvent } from "../../services/generated/kepler/model/v1/types.js";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createExtractorClient } from "../../services/extractor/client.js";
import { createIsolatorClient } from "../../services/isolator/client.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { OnlinePipelines } from "../../services/pipeline/domain/online-pipelines.js";
import { runPipeline as runPipelineOnce } from "../../services/pipeline/domain/run-pipeline.js";
import { createGrpcPeers } from "../../services/pipeline/grpc-peers.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { readGoldenCsv, recordedResponseText } from "../support/extractor-fixtures.js";
import {
  COREMARK_WINDOW,
  describeWithPrometheus,
  type PrometheusInstance,
  type SavedResponseDocument,
  savedResponseToOpenMetrics,
  shiftToYesterday,
  startPrometheus,
} from "../support/prometheus.js";

const { stepSeconds: STEP_SECONDS, first: FIRST, last: LAST } = COREMARK_WINDOW;
const SHIFT = shiftToYesterday();
const SOURCES = ["rapl-sysfs", "acpi"] as const;
// Valid for the coremark recording (reference counts.json: valid_groups).
const FEATURE_GROUPS = ["CounterIRQCombined", "CounterOnly"];
// What a Kepler v0.9 collector sends as `metrics` (kepler-collector §1.3), perf counters and eBPF alike.
const COLLECTOR_METRICS = [
  "cpu_cycles",
  "cpu_instructions",
  "cache_miss",
  "cpu_ref_cycles",
  "bpf_cpu_time_ms",
  "bpf_net_tx_irq",
  "bpf_net_rx_irq",
  "bpf_block_irq",
  "bpf_page_cache_hit",
];
const MACHINE = {
  processor: "intel_xeon_platinum_8259cl",
  cores: 96,
  chips: 2,
  memoryGib: 384,
  frequencyMhz: 3500,
  vendor: "intel",
  threadsPerCore: 2,
};

let prometheus: PrometheusInstance;
let mesh: MeshHandle;
let modelPath: string;
let trainerNames: string[];
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  const saved = JSON.parse(recordedResponseText("coremark")) as SavedResponseDocument;
  // Lookback 1s: backfilled series carry no staleness markers (see test/integration/prometheus-extract).
  prometheus = await startPrometheus({ backfillOpenMetrics: savedResponseToOpenMetrics(saved, SHIFT), lookbackDelta: "1s" });
  modelPath = await mkdtemp(join(tmpdir(), "pipeline-e2e-"));
  const ports = Object.fromEntries(
    ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].map((name) => [`${name}-port`, "0"]),
  );
  mesh = await startMesh({
    logger: silentLogger(),
    flags: { ...ports, "model-path": modelPath, "registry-rescan-ms": "0", "prometheus-allowlist": prometheus.baseUrl },
  });
  const trainer = createTrainerClient(address("trainer"));
  trainerNames = (await trainer.client.listTrainers({})).trainers.map((t) => t.trainerName);
  trainer.close();
}, 120_000);

afterAll(async () => {
  await mesh?.close();
  await prometheus?.stop();
  if (modelPath !== undefined) await rm(modelPath, { recursive: true, force: true });
});

interface RunOutput {
  progress: ProgressEvent[];
  results: TrainerResult[];
  summary: Extract<RunPipelineResponse["content"], { $case: "summary" }>["value"];
}

async function runPipeline(options: Partial<RunPipelineOptions>, idle?: Buffer): Promise<RunOutput> {
  const pipeline = createPipelineClient(address("pipeline"));
  try {
    const output: Partial<RunOutput> & Pick<RunOutput, "progress" | "results"> = { progress: [], results: [] };
    const requests = (async function* () {
      yield { content: { $case: "options" as const, value: RunPipelineOptionsMessage.fromPartial(options) } };
      if (idle !== undefined) yield { content: { $case: "idleResponseChunk" as const, value: idle } };
    })();
    for await (const response of pipeline.client.runPipeline(requests)) {
      const content = response.content;
      if (content?.$case === "progress") output.progress.push(content.value);
      else if (content?.$case === "result") output.results.push(content.value);
      else if (content?.$case === "summary") output.summary = content.value;
    }
    return output as RunOutput;
  } finally {
    pipeline.close();
  }
}

const liveWindow = () => ({
  baseUrl: prometheus.baseUrl,
  startTimeSeconds: FIRST + SHIFT,
  endTimeSeconds: LAST + SHIFT,
  stepSeconds: STEP_SECONDS,
  thirdPartyMetricNames: [],
  metricPrefix: "",
});

async function listModels(pipelineName: string): Promise<ModelMetadata[]> {
  const registry = createRegistryClient(address("registry"));
  try {
    return (await registry.client.listModels({ pipelineName })).models;
  } finally {
    registry.close();
  }
}

const key = (source: string, outputType: OutputType, featureGroup: string, modelName: string) =>
  `${source}/${outputType === OutputType.OUTPUT_TYPE_ABS_POWER ? "AbsPower" : "DynPower"}/${featureGroup}/${modelName}`;

describeWithPrometheus("pipeline end to end: Prometheus -> extractor -> isolator -> trainer -> registry -> estimator", () => {
  let minRun: RunOutput;

  it("trains every implemented trainer for both sources and every valid feature group (min isolator)", async () => {
    expect(trainerNames.length).toBeGreaterThanOrEqual(7);
    minRun = await runPipeline({
      pipelineName: "e2e_min",
      energySources: [...SOURCES],
      isolator: IsolatorKind.ISOLATOR_KIND_MIN,
      absTrainerNames: trainerNames,
      dynTrainerNames: trainerNames,
      window: liveWindow(),
      machineSpec: MACHINE,
      machineId: "coremark-host",
    });
    const expectedCount = SOURCES.length * FEATURE_GROUPS.length * 2 * trainerNames.length;
    const failed = minRun.results.filter((r) => r.outcome !== TrainOutcome.TRAIN_OUTCOME_SUCCEEDED);
    expect(failed.map((r) => `${r.energySource}/${r.featureGroup}/${r.trainerName}: ${r.failureReason}`)).toEqual([]);
    expect(minRun.summary).toMatchObject({ pipelineName: "e2e_min", succeededCount: expectedCount, failedCount: 0 });
    expect(minRun.summary.nodeTypeMatch).toMatchObject({ nodeType: 0, kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_EXACT });

    // Every published model is in the registry, at its location, with the MAE the trainer measured.
    const models = await listModels("e2e_min");
    expect(models).toHaveLength(expectedCount);
    const stored = new Map(
      models.map((m) => [key(m.location!.energySource, m.outputType, m.location!.featureGroup, m.modelName), m]),
    );
    for (const result of minRun.results) {
      const model = stored.get(key(result.energySource, result.outputType, result.featureGroup, result.modelName));
      expect(model, result.modelName).toBeDefined();
      expect(model?.maeWatts).toBe(Math.round(result.maeWatts * 100) / 100);
      expect(model?.nodeType).toBe(0);
      expect(model?.machineSpec).toMatchObject({ processor: MACHINE.processor, cores: 96 });
    }
    for (const source of SOURCES) {
      for (const outputType of [OutputType.OUTPUT_TYPE_ABS_POWER, OutputType.OUTPUT_TYPE_DYN_POWER]) {
        const groups = models.filter((m) => m.location?.energySource === source && m.outputType === outputType);
        expect([...new Set(groups.map((m) => m.location?.featureGroup))].sort()).toEqual(FEATURE_GROUPS);
      }
    }

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

    // Tables are worked on side by side, yet the run reads as if they ran one after the other: each
    // table's results form one block with the trainers in order, AbsPower before DynPower of the same
    // source and group, and the train counter goes up by one per trainer, in stream order.
    const tableOf = (r: (typeof minRun.results)[number]) => `${r.energySource}/${r.featureGroup}/${r.outputType}`;
    const blocks: string[] = [];
    for (const result of minRun.results) if (blocks.at(-1) !== tableOf(result)) blocks.push(tableOf(result));
    expect(blocks).toHaveLength(new Set(blocks).size);
    expect(blocks).toHaveLength(SOURCES.length * FEATURE_GROUPS.length * 2);
    for (const block of blocks) {
      expect(minRun.results.filter((r) => tableOf(r) === block).map((r) => r.trainerName)).toEqual(trainerNames);
    }
    for (let i = 0; i < blocks.length; i += 2) {
      expect([
        blocks[i]!.endsWith(`/${OutputType.OUTPUT_TYPE_ABS_POWER}`),
        blocks[i + 1]!.endsWith(`/${OutputType.OUTPUT_TYPE_DYN_POWER}`),
      ]).toEqual([true, true]);
      expect(blocks[i]!.split("/").slice(0, 2)).toEqual(blocks[i + 1]!.split("/").slice(0, 2));
    }
    const trainedCounts = minRun.progress
      .filter((p) => p.stage === "train" && p.message.startsWith("trained "))
      .map((p) => p.done);
    expect(trainedCounts).toEqual(Array.from({ length: expectedCount }, (_, i) => i + 1));

    // metadata.json (reference keys, in order) and node_type_index.json, written through the registry.
    const metadata = JSON.parse(minRun.summary.metadataJson);
    expect(Object.keys(metadata)).toEqual([
      "name",
      "isolator",
      "extractor",
      "abs_trainers",
      "dyn_trainers",
      "metric_type",
      "init_time",
      "last_update_time",
      "isolators",
    ]);
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
    expect(metadata.init_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await readFile(join(modelPath, "e2e_min", "metadata.json"), "utf8")).toBe(minRun.summary.metadataJson);
    const index = JSON.parse(await readFile(join(modelPath, "e2e_min", "node_type_index.json"), "utf8"));
    expect(index["0"]).toMatchObject({ members: ["coremark-host"] });
    // The per-pipeline model table: one row per published model of each source and output type.
    for (const source of ["rapl-sysfs", "acpi"]) {
      for (const outputType of ["AbsPower", "DynPower"]) {
        const table = (await readFile(join(modelPath, "e2e_min", `${source}_${outputType}_model_metadata.csv`), "utf8"))
          .trimEnd()
          .split("\n");
        expect(table[0]).toMatch(/^,model_name,model_class,model_file,features,fe_files,output_type,mae,mape,/);
        expect(table).toHaveLength(1 + 2 * trainerNames.length);
      }
    }
  }, 600_000);

  for (const [source, collectorSource, csv, components] of [
    ["rapl-sysfs", "intel_rapl", "extract_abs_rapl-sysfs_CounterIRQCombined.csv", ["package", "core", "uncore", "dram"]],
    ["acpi", "acpi", "extract_abs_acpi_CounterIRQCombined.csv", ["platform"]],
  ] as const) {
    it(`Estimate (${collectorSource}) with the collector's metric names picks the lowest-MAE model and stays in the observed range`, async () => {
      expect(minRun).toBeDefined();
      // Feature rows as Kepler sends them: per-second rates of the recorded coremark run (reference extraction).
      const table = readGoldenCsv(csv);
      const column = (name: string) => table.rows.map((row) => Number(row[table.header.indexOf(name)]));
      const present = COLLECTOR_METRICS.filter((name) => table.header.includes(name));
      const unavailable = COLLECTOR_METRICS.filter((name) => !table.header.includes(name));
      const values = new Float64Array(table.rows.length * COLLECTOR_METRICS.length);
      COLLECTOR_METRICS.forEach((name, j) => {
        if (!present.includes(name)) return;
        column(name).forEach((value, i) => {
          values[i * COLLECTOR_METRICS.length + j] = value;
        });
      });
      const estimator = createEstimatorClient(address("estimator"));
      try {
        const response = await estimator.client.estimate({
          featureNames: COLLECTOR_METRICS,
          unavailableFeatureNames: unavailable,
          rowCount: table.rows.length,
          values: Buffer.from(values.buffer),
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
          energySource: collectorSource,
          systemFeatureNames: ["cpu_architecture"],
          systemFeatureValues: ["unknown"],
          machineSpec: MACHINE,
          pipelineName: "e2e_min",
        });
        // The chosen model is the lowest-MAE AbsPower model of the source over both valid groups, and the
        // MAE the estimator reports is the one in its metadata.
        const candidates = (await listModels("e2e_min")).filter(
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
        expect(response.rowCount).toBe(table.rows.length);
        expect(response.componentPowers.map((c) => c.component)).toEqual(components);
        for (const { component, powerWatts } of response.componentPowers) {
          const observed = column(`${component}_power`);
          const low = Math.min(...observed);
          const high = Math.max(...observed);
          expect(powerWatts).toHaveLength(table.rows.length);
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
    const run = await runPipeline({
      pipelineName: "e2e_none",
      energySources: [...SOURCES],
      isolator: IsolatorKind.ISOLATOR_KIND_NONE,
      dynTrainerNames: requested,
      window: liveWindow(),
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

    const models = await listModels("e2e_none");
    expect(models).toHaveLength(pairs * trainerNames.length);
    expect(models.every((m) => m.outputType === OutputType.OUTPUT_TYPE_DYN_POWER)).toBe(true);
    expect([...new Set(models.map((m) => m.trainerName))].sort()).toEqual([...trainerNames].sort());
    const metadata = JSON.parse(run.summary.metadataJson);
    expect(metadata).toMatchObject({ name: "e2e_none", isolator: "none", abs_trainers: [], dyn_trainers: trainerNames });

    // The none isolator only squeezes containers into node rows: its DynPower table is the node table, so
    // each DynPower model matches the AbsPower model of the min run (same rows, same seeded split), to the
    // stored two decimals.
    const absModels = new Map(
      (await listModels("e2e_min"))
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

  it("writes train_arguments.json and the trained-on tables to preprocessed_data/ beside metadata.json", async () => {
    const window = liveWindow();
    const run = await runPipeline({
      pipelineName: "e2e_files",
      energySources: ["rapl-sysfs"],
      featureGroups: ["CounterOnly"],
      isolator: IsolatorKind.ISOLATOR_KIND_MIN,
      absTrainerNames: ["LinearRegressionTrainer"],
      dynTrainerNames: ["LinearRegressionTrainer"],
      window,
      nodeType: 3,
      seed: 7,
    });
    expect(run.summary).toMatchObject({ succeededCount: 2, failedCount: 0 });
    const folder = join(modelPath, "e2e_files");
    expect(JSON.parse(await readFile(join(folder, "train_arguments.json"), "utf8"))).toEqual({
      input: {
        base_url: window.baseUrl,
        start_time: window.startTimeSeconds,
        end_time: window.endTimeSeconds,
        step_seconds: STEP_SECONDS,
        metric_prefix: "",
      },
      idle_input: null,
      pipeline_name: "e2e_files",
      extractor: "default",
      isolator: "min",
      target_hints: [],
      bg_hints: [],
      abs_pipeline_name: "",
      energy_source: ["rapl-sysfs"],
      feature_groups: ["CounterOnly"],
      abs_trainers: ["LinearRegressionTrainer"],
      dyn_trainers: ["LinearRegressionTrainer"],
      id: null,
      machine_spec: null,
      node_type: 3,
      seed: 7,
      vm_train: false,
      third_party_metrics: [],
    });

    // The same tables, extracted and isolated again through the services, equal the written files.
    const clients = {
      registry: createRegistryClient(address("registry")),
      extractor: createExtractorClient(address("extractor")),
      isolator: createIsolatorClient(address("isolator")),
      trainer: createTrainerClient(address("trainer")),
    };
    try {
      const peers = createGrpcPeers(clients);
      const response = await peers.queryPrometheus(window);
      const spec = {
        energySource: "rapl-sysfs",
        featureGroup: "CounterOnly",
        extractor: "default",
        nodeType: 3,
        useVmMetrics: false,
        thirdPartyMetricNames: [],
      } as const;
      const node = await peers.extract(response, { ...spec, level: "node" });
      const containers = await peers.extract(response, { ...spec, level: "container" });
      const isolated = await peers.isolate(containers, {
        isolator: "min",
        energySource: "rapl-sysfs",
        nodeType: 3,
        targetHints: [],
        backgroundHints: [],
        absPipelineName: "",
      });
      for (const [file, table] of [
        ["preprocess_abs_default_rapl-sysfs_CounterOnly.csv", node],
        ["preprocess_dyn_default_min_rapl-sysfs_CounterOnly.csv", isolated.table],
      ] as const) {
        const lines = (await readFile(join(folder, "preprocessed_data", file), "utf8")).trimEnd().split("\n");
        const index = table.rowIds === undefined ? ["timestamp"] : ["timestamp", "id"];
        expect(lines[0], file).toBe([...index, ...table.columnNames].join(","));
        expect(table.rowCount, file).toBeGreaterThan(10);
        expect(lines, file).toHaveLength(1 + table.rowCount);
        expect(Number(lines[1]!.split(",")[0]), file).toBe(table.timestamps[0]);
      }
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
  }, 120_000);

  it("online (service clock moved through the recording): trains on the first run, skips until a newer sample arrives", async () => {
    const clients = {
      registry: createRegistryClient(address("registry")),
      extractor: createExtractorClient(address("extractor")),
      isolator: createIsolatorClient(address("isolator")),
      trainer: createTrainerClient(address("trainer")),
    };
    const peers = createGrpcPeers(clients);
    // "Now" is inside the shifted recording: each run reads the 300 s before it.
    let nowSeconds = FIRST + SHIFT + 360;
    const online = new OnlinePipelines({
      run: (options, gate, signal) => runPipelineOnce(options, { peers, signal }, gate),
      nowSeconds: () => nowSeconds,
      minIntervalSeconds: 0.01,
    });
    try {
      const started = online.start({
        options: {
          pipelineName: "e2e_online",
          energySources: ["rapl-sysfs"],
          featureGroups: ["CounterOnly"],
          extractor: "default",
          isolator: "min",
          targetHints: [],
          backgroundHints: [],
          absPipelineName: "",
          absTrainerNames: ["LinearRegressionTrainer"],
          dynTrainerNames: [],
          seed: 0,
          useVmMetrics: false,
          thirdPartyMetricNames: [],
          window: { ...liveWindow(), startTimeSeconds: 0, endTimeSeconds: 0 },
        },
        intervalSeconds: 0.05,
        lookbackSeconds: 300,
      });
      expect(started).toMatchObject({ pipelineName: "e2e_online", running: true, intervalSeconds: 0.05, runCount: 0 });
      await vi.waitFor(() => expect(online.get("e2e_online")?.skippedRunCount).toBeGreaterThanOrEqual(2), {
        timeout: 60_000,
        interval: 20,
      });
      expect(online.get("e2e_online")).toMatchObject({ runCount: 1, lastError: "" });
      const first = (await listModels("e2e_online"))[0];
      expect(first?.modelName).toBe("LinearRegressionTrainer_0");

      // New samples arrive (the clock moves 60 s on): the next run trains again, on the newer window.
      nowSeconds += 60;
      await vi.waitFor(() => expect(online.get("e2e_online")?.runCount).toBe(2), { timeout: 60_000, interval: 20 });
      const second = (await listModels("e2e_online"))[0];
      expect(second?.publishedTimeSeconds).toBeGreaterThan(first?.publishedTimeSeconds ?? Number.POSITIVE_INFINITY);
      expect(second?.maeWatts).not.toBe(first?.maeWatts);

      const stopped = await online.stop("e2e_online");
      expect(stopped).toMatchObject({ running: false, runCount: 2, lastError: "" });
      expect(stopped.skippedRunCount).toBeGreaterThanOrEqual(2);
      await expect(online.stop("e2e_online")).rejects.toThrow('online pipeline "e2e_online" not found');
    } finally {
      await online.close();
      for (const client of Object.values(clients)) client.close();
    }
  }, 120_000);

  it("StartOnlinePipeline / GetPipeline / ListPipelines / StopOnlinePipeline over gRPC", async () => {
    const pipeline = createPipelineClient(address("pipeline"));
    try {
      const options = RunPipelineOptionsMessage.fromPartial({
        pipelineName: "e2e_live",
        absTrainerNames: ["LinearRegressionTrainer"],
        window: liveWindow(),
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

  it("rejects requests that cannot run with INVALID_ARGUMENT naming the field, before training anything", async () => {
    const failure = async (options: Partial<RunPipelineOptions>, inline = false) => {
      const pipeline = createPipelineClient(address("pipeline"));
      try {
        const requests = (async function* () {
          yield { content: { $case: "options" as const, value: RunPipelineOptionsMessage.fromPartial(options) } };
          if (inline)
            yield { content: { $case: "responseChunk" as const, value: Buffer.from(recordedResponseText("coremark")) } };
        })();
        for await (const response of pipeline.client.runPipeline(requests)) expect(response.content?.$case).toBe("progress");
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(ClientError);
        return [Status[(error as ClientError).code], (error as ClientError).details];
      } finally {
        pipeline.close();
      }
    };
    const base = { pipelineName: "e2e_bad", absTrainerNames: ["LinearRegressionTrainer"] };
    expect(await failure({ ...base })).toEqual([
      "INVALID_ARGUMENT",
      "requests[0].options.window: no data: name a live window or send the Prometheus response as response_chunk messages",
    ]);
    expect(await failure({ ...base, absTrainerNames: [] }, true)).toEqual([
      "INVALID_ARGUMENT",
      "options.abs_trainer_names: name at least one AbsPower or DynPower trainer (abs_trainer_names, dyn_trainer_names)",
    ]);
    expect(await failure({ ...base, pipelineName: "../escape" }, true)).toEqual([
      "INVALID_ARGUMENT",
      `options.pipeline_name: "../escape" is not a valid name (letters, digits, '.', '_' and '-' only)`,
    ]);
    expect(await failure({ ...base, featureGroups: ["BPFOnly"] }, true)).toEqual([
      "INVALID_ARGUMENT",
      "options.feature_groups[0]: BPFOnly is not valid for the data: some of its metrics are missing (valid: CounterOnly, CounterIRQCombined, IRQOnly, CgroupOnly, KubeletOnly)",
    ]);
    expect(await failure({ ...base, energySources: ["hmc"] }, true)).toEqual([
      "INVALID_ARGUMENT",
      "options.energy_sources[0]: the data has no hmc power series (it has: acpi, rapl-sysfs)",
    ]);
    expect(await failure({ ...base, machineSpec: MACHINE }, true)).toEqual([
      "INVALID_ARGUMENT",
      "options.machine_id: required with machine_spec (it is stored in the node type's members)",
    ]);
    expect(await listModels("e2e_bad")).toEqual([]);
  });

  it("profile isolator with inline idle data beside a live window, and the trainer isolator over the min run's models", async () => {
    expect(minRun).toBeDefined();
    const common = {
      energySources: ["rapl-sysfs"],
      featureGroups: ["CounterOnly"],
      dynTrainerNames: ["LinearRegressionTrainer"],
      window: liveWindow(),
    };
    const profile = await runPipeline(
      { ...common, pipelineName: "e2e_profile", isolator: IsolatorKind.ISOLATOR_KIND_PROFILE },
      Buffer.from(recordedResponseText("idle")),
    );
    expect(profile.summary).toMatchObject({ succeededCount: 1, failedCount: 0 });
    expect(profile.progress.filter((p) => p.stage === "profile").map((p) => p.message)).toEqual([
      "building idle profiles",
      "4 idle profiles",
    ]);
    expect(profile.progress.find((p) => p.stage === "isolate" && p.done === 1)?.message).toBe("187 rows (profile)");
    expect(JSON.parse(profile.summary.metadataJson).isolator).toBe("profile");

    const trainer = await runPipeline({
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
