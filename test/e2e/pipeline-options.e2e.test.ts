// End to end over real gRPC, on the coremark recording in a real Prometheus and all six services in one
// process: what RunPipeline options do besides training (pipeline-run.e2e.test.ts trains every trainer).
// A run writes train_arguments.json and the tables it trained on; an online pipeline on a moving clock
// trains again only when newer samples arrive; options that cannot run are refused naming the field.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { expect, it, vi } from "vitest";
import {
  type RunPipelineOptions,
  RunPipelineOptions as RunPipelineOptionsMessage,
} from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind } from "../../services/generated/kepler/model/v1/types.js";
import { createExtractorClient } from "../../services/extractor/client.js";
import { createIsolatorClient } from "../../services/isolator/client.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { OnlinePipelines } from "../../services/pipeline/domain/online-pipelines.js";
import { runPipeline as runPipelineOnce } from "../../services/pipeline/domain/run-pipeline.js";
import { createGrpcPeers } from "../../services/pipeline/grpc-peers.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { COREMARK_MACHINE as MACHINE, useCoremarkPrometheus } from "../support/coremark-prometheus.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { recordedResponseText } from "../support/extractor-fixtures.js";
import { listPipelineModels, runPipelineStream } from "../support/pipeline-runs.js";
import { COREMARK_WINDOW, describeWithPrometheus } from "../support/prometheus.js";
import { coremarkOnlineOptions } from "../support/online-spec.js";

const prometheus = useCoremarkPrometheus();
const mesh = useE2eMesh("pipeline-options-e2e-", () => prometheus.baseUrl);

/** The pipeline service's peers, built here over gRPC clients of the mesh, and a close for the clients. */
function meshPeers() {
  const clients = {
    registry: createRegistryClient(mesh.address("registry")),
    extractor: createExtractorClient(mesh.address("extractor")),
    isolator: createIsolatorClient(mesh.address("isolator")),
    trainer: createTrainerClient(mesh.address("trainer")),
  };
  return { peers: createGrpcPeers(clients), close: () => Object.values(clients).forEach((client) => client.close()) };
}

describeWithPrometheus("pipeline options end to end: written files, online runs, refused requests", () => {
  it("writes train_arguments.json and the trained-on tables to preprocessed_data/ beside metadata.json", async () => {
    const window = prometheus.liveWindow();
    const run = await runPipelineStream(mesh, {
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
    const folder = join(mesh.modelPath, "e2e_files");
    expect(JSON.parse(await readFile(join(folder, "train_arguments.json"), "utf8"))).toEqual({
      input: {
        base_url: window.baseUrl,
        start_time: window.startTimeSeconds,
        end_time: window.endTimeSeconds,
        step_seconds: COREMARK_WINDOW.stepSeconds,
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
    const { peers, close } = meshPeers();
    try {
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
      close();
    }
  }, 120_000);

  it("online (service clock moved through the recording): trains on the first run, skips until a newer sample arrives", async () => {
    const { peers, close } = meshPeers();
    // "Now" is inside the shifted recording: each run reads the 300 s before it.
    let nowSeconds = COREMARK_WINDOW.first + prometheus.shiftSeconds + 360;
    const online = new OnlinePipelines({
      run: (options, gate, signal) => runPipelineOnce(options, { peers, signal }, gate),
      nowSeconds: () => nowSeconds,
      minIntervalSeconds: 0.01,
    });
    try {
      const started = online.start({
        options: coremarkOnlineOptions("e2e_online", { ...prometheus.liveWindow(), startTimeSeconds: 0, endTimeSeconds: 0 }),
        intervalSeconds: 0.05,
        lookbackSeconds: 300,
      });
      expect(started).toMatchObject({ pipelineName: "e2e_online", running: true, intervalSeconds: 0.05, runCount: 0 });
      await vi.waitFor(() => expect(online.get("e2e_online")?.skippedRunCount).toBeGreaterThanOrEqual(2), {
        timeout: 60_000,
        interval: 20,
      });
      expect(online.get("e2e_online")).toMatchObject({ runCount: 1, lastError: "" });
      const first = (await listPipelineModels(mesh, "e2e_online"))[0];
      expect(first?.modelName).toBe("LinearRegressionTrainer_0");

      // New samples arrive (the clock moves 60 s on): the next run trains again, on the newer window.
      nowSeconds += 60;
      await vi.waitFor(() => expect(online.get("e2e_online")?.runCount).toBe(2), { timeout: 60_000, interval: 20 });
      const second = (await listPipelineModels(mesh, "e2e_online"))[0];
      expect(second?.publishedTimeSeconds).toBeGreaterThan(first?.publishedTimeSeconds ?? Number.POSITIVE_INFINITY);
      expect(second?.maeWatts).not.toBe(first?.maeWatts);

      const stopped = await online.stop("e2e_online");
      expect(stopped).toMatchObject({ running: false, runCount: 2, lastError: "" });
      expect(stopped.skippedRunCount).toBeGreaterThanOrEqual(2);
      await expect(online.stop("e2e_online")).rejects.toThrow('online pipeline "e2e_online" not found');
    } finally {
      await online.close();
      close();
    }
  }, 120_000);

  it("rejects requests that cannot run with INVALID_ARGUMENT naming the field, before training anything", async () => {
    const failure = async (options: Partial<RunPipelineOptions>, inline = false) => {
      const pipeline = createPipelineClient(mesh.address("pipeline"));
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
    expect(await listPipelineModels(mesh, "e2e_bad")).toEqual([]);
  });
});
