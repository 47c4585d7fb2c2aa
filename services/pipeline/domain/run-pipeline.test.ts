// runPipeline over fake peers (plain objects implementing PipelinePeers): the order of the peer calls,
// the progress and results streamed, a failing trainer or table costing no other model, cancellation,
// the online gate and the files written. End-to-end runs over the real services: test/e2e/pipeline*.
import { describe, expect, it } from "vitest";
import { createFakePipelinePeers, type FakePeerScript } from "../../../test/support/fake-pipeline-peers.js";
import type { PipelineRunOptions } from "./pipeline-options.js";
import type { PipelineProgress, PipelineTrainerResult } from "./pipeline-peers.js";
import { type RunGate, runPipeline } from "./run-pipeline.js";

const spec = { processor: "x", cores: 4, chips: 1, memoryGib: 16, frequencyMhz: 2000, vendor: "v", threadsPerCore: 2 };
const options: PipelineRunOptions = {
  pipelineName: "p",
  energySources: [],
  featureGroups: [],
  extractor: "default",
  isolator: "min",
  targetHints: [],
  backgroundHints: [],
  absPipelineName: "",
  absTrainerNames: ["A", "B"],
  dynTrainerNames: ["C"],
  data: { kind: "inline", response: new Uint8Array([1]) },
  machine: { spec, machineId: "m1" },
  seed: 42,
  useVmMetrics: false,
  thirdPartyMetricNames: [],
};
const twoGroups = { overview: { validFeatureGroups: ["BPFOnly", "CounterOnly"], energySources: ["rapl-sysfs"] } };

async function run(
  overrides: Partial<PipelineRunOptions> = {},
  script: FakePeerScript = {},
  gate?: RunGate,
  signal?: AbortSignal,
) {
  const { peers, log } = createFakePipelinePeers(script);
  const progress: PipelineProgress[] = [];
  const results: PipelineTrainerResult[] = [];
  const summary = await runPipeline(
    { ...options, ...overrides },
    {
      peers,
      onProgress: (event) => progress.push(event),
      onResult: (result) => results.push(result),
      nowSeconds: () => 1695361425,
      signal,
    },
    gate,
  );
  const outcome = (result: PipelineTrainerResult) =>
    `${result.outputType}/${result.featureGroup}/${result.modelName}: ${result.succeeded ? "ok" : result.failureReason}`;
  return { summary, calls: log.calls, written: log.written, progress, results, outcomes: results.map(outcome) };
}

const line = ({ stage, subject, done, total, message }: PipelineProgress) => `${stage} ${subject} ${done}/${total} ${message}`;

describe("runPipeline over fake peers", () => {
  it("indexes the machine, extracts, trains AbsPower, isolates, trains DynPower, then writes the metadata", async () => {
    const { summary, calls, progress, outcomes, written } = await run();
    expect(calls).toEqual([
      "describeData",
      "indexMachine p m1",
      "extract rapl-sysfs/BPFOnly/node",
      "extract rapl-sysfs/BPFOnly/container",
      "train rapl-sysfs/BPFOnly/AbsPower A,B",
      "isolate rapl-sysfs min",
      "train rapl-sysfs/BPFOnly/DynPower C",
      "readPipelineMetadata p",
      "writePipelineMetadata p",
    ]);
    const abs = "rapl-sysfs/BPFOnly/AbsPower";
    expect(progress.map(line)).toEqual([
      "extract rapl-sysfs/BPFOnly/node 0/2 extracting the node table",
      "extract rapl-sysfs/BPFOnly/node 1/2 3 rows",
      `train ${abs}/A 0/3 training A`,
      `publish ${abs}/A_1 0/3 published A_1`,
      `train ${abs}/A 1/3 trained A`,
      `train ${abs}/B 1/3 training B`,
      `publish ${abs}/B_1 1/3 published B_1`,
      `train ${abs}/B 2/3 trained B`,
      "extract rapl-sysfs/BPFOnly/container 1/2 extracting the container table",
      "extract rapl-sysfs/BPFOnly/container 2/2 3 rows",
      "isolate rapl-sysfs/BPFOnly 0/1 isolating with min",
      "isolate rapl-sysfs/BPFOnly 1/1 3 rows (min)",
      "train rapl-sysfs/BPFOnly/DynPower/C 2/3 training C",
      "publish rapl-sysfs/BPFOnly/DynPower/C_1 2/3 published C_1",
      "train rapl-sysfs/BPFOnly/DynPower/C 3/3 trained C",
      "metadata p 1/1 wrote metadata.json, train_arguments.json, 2 tables",
    ]);
    expect(outcomes).toEqual(["AbsPower/BPFOnly/A_1: ok", "AbsPower/BPFOnly/B_1: ok", "DynPower/BPFOnly/C_1: ok"]);
    expect(summary).toMatchObject({ pipelineName: "p", succeededCount: 3, failedCount: 0, notices: [], skipped: false });
    expect(summary.nodeType).toEqual({ nodeType: 1, kind: "indexed", spec, created: true });
    // The last row (106 s) differs from the one before it.
    expect(summary.newestSampleSeconds).toBe(106);
    expect(JSON.parse(summary.metadataJson)).toEqual({
      name: "p",
      isolator: "min",
      extractor: "default",
      abs_trainers: ["A", "B"],
      dyn_trainers: ["C"],
      metric_type: "bm_metrics",
      init_time: "2023-09-22 05:43:45",
      last_update_time: "2023-09-22 05:43:45",
      isolators: { "rapl-sysfs/BPFOnly": "min" },
    });
    expect(written?.metadataJson).toBe(summary.metadataJson);
    expect(written?.files.map((file) => file.path)).toEqual([
      "train_arguments.json",
      "preprocessed_data/preprocess_abs_default_rapl-sysfs_BPFOnly.csv",
      "preprocessed_data/preprocess_dyn_default_min_rapl-sysfs_BPFOnly.csv",
    ]);
    expect(written?.files[1]!.text.split("\n")[0]).toBe("timestamp,bpf_cpu_time_ms,package_power");
  });

  it("with the trainer isolator, isolates only after this run's AbsPower models are trained", async () => {
    const { calls } = await run({ isolator: "trainer", absPipelineName: "p" });
    expect(calls.slice(2, 7)).toEqual([
      "extract rapl-sysfs/BPFOnly/node",
      "train rapl-sysfs/BPFOnly/AbsPower A,B",
      "extract rapl-sysfs/BPFOnly/container",
      "isolate rapl-sysfs trainer",
      "train rapl-sysfs/BPFOnly/DynPower C",
    ]);
  });

  it("a trainer the trainer service refuses fails alone: the others of its call are trained one by one", async () => {
    const { summary, calls, outcomes } = await run(
      { absTrainerNames: ["A", "bad", "B"] },
      { refusedTrainers: ["bad"], failingTrainers: { B: "fit diverged" } },
    );
    // The DynPower table's Train call overlaps the retries (tables are worked on side by side).
    expect(calls.filter((call) => call.startsWith("train rapl-sysfs/BPFOnly/AbsPower"))).toEqual([
      "train rapl-sysfs/BPFOnly/AbsPower A,bad,B",
      "train rapl-sysfs/BPFOnly/AbsPower A",
      "train rapl-sysfs/BPFOnly/AbsPower bad",
      "train rapl-sysfs/BPFOnly/AbsPower B",
    ]);
    expect(calls).toContain("train rapl-sysfs/BPFOnly/DynPower C");
    expect(outcomes).toEqual([
      "AbsPower/BPFOnly/A_1: ok",
      "AbsPower/BPFOnly/bad_1: unknown trainer bad",
      "AbsPower/BPFOnly/B_1: fit diverged",
      "DynPower/BPFOnly/C_1: ok",
    ]);
    expect(summary).toMatchObject({ succeededCount: 2, failedCount: 2 });
    expect(JSON.parse(summary.metadataJson)).toMatchObject({ abs_trainers: ["A"], dyn_trainers: ["C"] });
  });

  it("a failed extraction fails that table's trainers only, with a notice", async () => {
    const { summary, outcomes, progress } = await run(
      { machine: undefined },
      { ...twoGroups, failingExtractions: { "rapl-sysfs/CounterOnly/container": "no container rows" } },
    );
    expect(outcomes).toEqual([
      "AbsPower/BPFOnly/A_0: ok",
      "AbsPower/BPFOnly/B_0: ok",
      "DynPower/BPFOnly/C_0: ok",
      "AbsPower/CounterOnly/A_0: ok",
      "AbsPower/CounterOnly/B_0: ok",
      // The node type comes from the data: a trainer that never trained has none.
      "DynPower/CounterOnly/: extract: no container rows",
    ]);
    expect(summary.notices).toEqual(["rapl-sysfs/CounterOnly: no DynPower table: no container rows"]);
    expect(summary).toMatchObject({ succeededCount: 5, failedCount: 1 });
    expect(progress.filter((event) => event.stage === "train").at(-1)).toEqual({
      stage: "train",
      subject: "rapl-sysfs/CounterOnly/DynPower",
      done: 6,
      total: 6,
      message: "failed: extract: no container rows",
    });
  });

  it("stops when cancelled: no other call, no result, no metadata; the run rejects with the cancellation", async () => {
    const controller = new AbortController();
    const { peers, log } = createFakePipelinePeers({ ...twoGroups, onTrain: () => controller.abort() });
    const progress: PipelineProgress[] = [];
    const results: PipelineTrainerResult[] = [];
    const running = runPipeline(
      { ...options, machine: undefined },
      {
        peers,
        signal: controller.signal,
        onProgress: (event) => progress.push(event),
        onResult: (result) => results.push(result),
      },
    );
    await expect(running).rejects.toThrow("This operation was aborted");
    // Four tables side by side: their extractions started before the first Train call cancelled the run.
    expect(log.calls).toEqual([
      "describeData",
      "extract rapl-sysfs/BPFOnly/node",
      "extract rapl-sysfs/BPFOnly/container",
      "extract rapl-sysfs/CounterOnly/node",
      "extract rapl-sysfs/CounterOnly/container",
      "train rapl-sysfs/BPFOnly/AbsPower A,B",
    ]);
    expect(results).toEqual([]);
    expect(log.written).toBeUndefined();
    expect(progress.map(line)).toEqual([
      "extract rapl-sysfs/BPFOnly/node 0/4 extracting the node table",
      "extract rapl-sysfs/BPFOnly/node 1/4 3 rows",
      "train rapl-sysfs/BPFOnly/AbsPower/A 0/6 training A",
      // What the other tables said before the cancellation, replayed in table order as each lane ends.
      "extract rapl-sysfs/BPFOnly/container 1/4 extracting the container table",
      "extract rapl-sysfs/CounterOnly/node 1/4 extracting the node table",
      "extract rapl-sysfs/CounterOnly/container 1/4 extracting the container table",
    ]);
  });

  it("an online run trains only when the data's newest sample is newer than the last run's", async () => {
    const skipped = await run({}, {}, { newerThanSeconds: 106 });
    expect(skipped.summary).toMatchObject({ skipped: true, succeededCount: 0, metadataJson: "", newestSampleSeconds: 106 });
    expect(skipped.summary.notices).toEqual(["no new data since the last run: nothing trained"]);
    expect(skipped.calls).toEqual(["describeData", "indexMachine p m1", "extract rapl-sysfs/BPFOnly/node"]);
    expect(skipped.results).toEqual([]);
    const trained = await run({}, {}, { newerThanSeconds: 105 });
    expect(trained.summary).toMatchObject({ skipped: false, succeededCount: 3 });
  });

  it("reads live windows and, for the profile isolator, builds idle profiles kept beside metadata.json", async () => {
    const window = {
      baseUrl: "http://prom",
      startTimeSeconds: 0,
      endTimeSeconds: 300,
      stepSeconds: 3,
      thirdPartyMetricNames: [],
      metricPrefix: "",
    };
    const { calls, progress, written } = await run({
      isolator: "profile",
      data: { kind: "window", window },
      idleData: { kind: "window", window: { ...window, baseUrl: "http://idle" } },
    });
    expect(calls.slice(0, 7)).toEqual([
      "queryPrometheus http://prom",
      "queryPrometheus http://idle",
      "describeData",
      "indexMachine p m1",
      "extract rapl-sysfs/BPFOnly/node",
      "readStoredProfiles p",
      "buildIdleProfiles rapl-sysfs node type 1",
    ]);
    expect(progress.slice(0, 6).map(line)).toEqual([
      "query workload 0/1 reading http://prom",
      "query workload 1/1 read 20 bytes",
      "query idle 0/1 reading http://idle",
      "query idle 1/1 read 20 bytes",
      "profile idle 0/1 building idle profiles",
      "profile idle 1/1 1 idle profiles",
    ]);
    expect(written?.files.map((file) => file.path)).toEqual([
      "train_arguments.json",
      "profile/rapl-sysfs.json",
      "profile/background_containers.json",
      "preprocessed_data/preprocess_abs_default_rapl-sysfs_BPFOnly.csv",
      "preprocessed_data/preprocess_dyn_default_profile_rapl-sysfs_BPFOnly.csv",
    ]);
    expect(JSON.parse(written!.files[2]!.text)).toEqual({ 1: ["idle-daemon"] });
  });
});
