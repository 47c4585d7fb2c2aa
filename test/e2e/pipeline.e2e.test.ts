// End to end over real gRPC: a real Prometheus backfilled with the recorded coremark data, all six services
// in one process on 127.0.0.1 port 0 over a temporary MODEL_PATH. RunPipeline reads the live window and
// trains every trainer the trainer service implements for rapl-sysfs and acpi with the min and none
// isolators; the registry then holds models for every valid feature group, and Estimate with the Kepler
// collector's metric names returns watts inside the observed power range from the lowest-MAE model.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { ModelMetadata } from "../../services/generated/kepler/model/v1/model.js";
import { NodeTypeMatchKind } from "../../services/generated/kepler/model/v1/model.js";
import type { RunPipelineOptions, RunPipelineResponse } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { RunPipelineOptions as RunPipelineOptionsMessage } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { type TrainerResult, TrainOutcome } from "../../services/generated/kepler/model/v1/trainer_service.js";
import type { ProgressEvent } from "../../services/generated/kepler/model/v1/types.js";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { readGoldenCsv, recordedResponseText } from "../support/extractor-fixtures.js";
import {
  type PrometheusInstance,
  type SavedResponseDocument,
  savedResponseToOpenMetrics,
  startPrometheus,
} from "../support/prometheus.js";

const STEP_SECONDS = 3;
const FIRST = 1695361425;
const LAST = 1695361986;
// The 2023 recording moved to a day ago, a whole number of steps so query_range's grid hits every sample.
const SHIFT = Math.floor((Date.now() / 1000 - 86_400 - FIRST) / STEP_SECONDS) * STEP_SECONDS;
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
  mesh = await startMesh({ logger: silentLogger(), flags: { ...ports, "model-path": modelPath, "registry-rescan-ms": "0" } });
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

async function runPipeline(options: Partial<RunPipelineOptions>): Promise<RunOutput> {
  const pipeline = createPipelineClient(address("pipeline"));
  try {
    const output: Partial<RunOutput> & Pick<RunOutput, "progress" | "results"> = { progress: [], results: [] };
    const requests = (async function* () {
      yield { content: { $case: "options" as const, value: RunPipelineOptionsMessage.fromPartial(options) } };
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

describe("pipeline end to end: Prometheus -> extractor -> isolator -> trainer -> registry -> estimator", () => {
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
    ]);
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
});
