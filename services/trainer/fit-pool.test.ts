// The fit pool changes where fits run, never what they produce: same models, metrics, archives, progress
// events and publish order as on the main thread, failures named the same, and a closed pool refuses work.
import { afterAll, describe, expect, it } from "vitest";
import { goldenTable, goldenTestTimestamps } from "../../test/fixtures/trainer/fixtures.js";
import { createDataTable } from "../domain/data-table.js";
import { archiveZip, type ModelArchive, readZip } from "../models/index.js";
import { type ComponentFitter, inThreadFitter } from "./domain/fit-components.js";
import { FitDurations } from "./domain/fit-durations.js";
import { type TrainModelsRequest, type TrainProgress, trainModels } from "./domain/train-models.js";
import { listTrainers } from "./domain/trainer-registry.js";
import { createFitPool } from "./fit-pool.js";

const pool = createFitPool(2);
afterAll(() => pool.close());

async function runWith(fitter: ComponentFitter, request: TrainModelsRequest) {
  const progress: TrainProgress[] = [];
  const published: ModelArchive[] = [];
  const { results } = await trainModels(request, {
    fitter,
    // One training time for both runs compared (metadata training.time_seconds)
    clock: () => 1_700_000_000_000,
    onProgress: (event) => progress.push(event),
    publishModel: async (archive) => {
      published.push(archive);
    },
  });
  return { results, progress, published };
}

/** Every trainer on the acpi golden table, split as the goldens are. */
function everyTrainerOnAcpi(overrides: Partial<TrainModelsRequest>): TrainModelsRequest {
  return {
    table: goldenTable("acpi"),
    energySource: "acpi",
    featureGroup: "CounterOnly",
    outputType: "AbsPower",
    trainerNames: listTrainers().map((t) => t.name),
    testTimestampsSeconds: goldenTestTimestamps("acpi"),
    seed: 7,
    ...overrides,
  };
}

/** Fits on this thread, two at a time, noting the order they start in and reporting made-up times. */
function madeUpTimes(started: string[], elapsedMs: (trainerName: string) => number): ComponentFitter {
  return {
    concurrency: 2,
    fit: async (job, signal) => {
      started.push(job.trainerName);
      const outcome = await inThreadFitter.fit(job, signal);
      return { ...outcome, elapsedMs: elapsedMs(job.trainerName) };
    },
  };
}

describe("trainer fit pool", () => {
  it.each(["rapl-sysfs", "acpi"] as const)(
    "gives the main thread's results on coremark %s, in the same order",
    async (source) => {
      const request: TrainModelsRequest = {
        table: goldenTable(source),
        energySource: source,
        featureGroup: "CounterOnly",
        outputType: "AbsPower",
        trainerNames: listTrainers().map((t) => t.name),
        testTimestampsSeconds: goldenTestTimestamps(source),
        pipelineName: "pool",
        seed: 7,
      };
      const inThread = await runWith(inThreadFitter, request);
      const pooled = await runWith(pool, request);
      expect(inThread.results.every((r) => r.outcome === "succeeded")).toBe(true);
      expect(pooled.results).toEqual(inThread.results);
      expect(pooled.progress).toEqual(inThread.progress);
      expect(pooled.published.map((a) => a.location)).toEqual(inThread.published.map((a) => a.location));
      // Each zip (made with the fits, stamped with the time it was made) holds exactly the archive's files.
      const files = (archives: ModelArchive[]) => archives.map(({ location, files }) => ({ location, files }));
      expect(files(pooled.published)).toEqual(files(inThread.published));
      for (const archive of [...pooled.published, ...inThread.published])
        expect(readZip(archiveZip(archive)).map((entry) => [entry.name, Buffer.from(entry.data)])).toEqual(
          archive.files.map((file) => [file.name, Buffer.from(file.data)]),
        );
      expect(pooled.published.length).toBe(listTrainers().length);
    },
  );

  it("starts the fits expected to take longest first (learned per trainer), reporting in trainer order", async () => {
    const trainerNames = listTrainers().map((t) => t.name);
    const request = everyTrainerOnAcpi({ skipPublish: true });
    // Fits run on this thread; each reports a made-up time, longest for the last trainers of the list.
    const started: string[] = [];
    const timed = madeUpTimes(started, (trainerName) => 1 + trainerNames.indexOf(trainerName));
    const fitDurations = new FitDurations();
    // One training time for both runs: the results compared carry it (a second apart they would differ).
    const clock = () => 1_700_000_000_000;
    const first = await trainModels(request, { fitter: timed, fitDurations, clock });
    expect(started).toEqual(trainerNames); // nothing learned yet: list order
    started.length = 0;
    const second = await trainModels(request, { fitter: timed, fitDurations, clock });
    expect(started).toEqual([...trainerNames].reverse());
    expect(second.results.map((r) => r.trainerName)).toEqual(trainerNames);
    expect(second.results).toEqual(first.results);
  });

  it("learns how long a result takes to publish, and starts the fits by their turn to publish", async () => {
    const trainerNames = listTrainers().map((t) => t.name);
    const request = everyTrainerOnAcpi({ pipelineName: "order" });
    const started: string[] = [];
    // The last trainer of the list is by far the longest.
    const timed = madeUpTimes(started, (trainerName) => (trainerName === trainerNames.at(-1) ? 200 : 1));
    const published: string[] = [];
    const publishModel = async (archive: { location: { modelName: string } }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      published.push(archive.location.modelName);
    };
    const fitDurations = new FitDurations();
    await trainModels(request, { fitter: timed, fitDurations, publishModel });
    expect(fitDurations.expectedPublishMs()).toBeGreaterThanOrEqual(4);
    started.length = 0;
    await trainModels(request, { fitter: timed, fitDurations, publishModel });
    // Started first: it is due after 9 publishes of ~5 ms, far sooner than its 200 ms fit ends.
    expect(started[0]).toBe(trainerNames.at(-1));
    expect(started.slice(1)).toEqual(trainerNames.slice(0, -1));
    expect(published.slice(trainerNames.length)).toEqual(published.slice(0, trainerNames.length));
  });

  it("names a failed fit the same way as on the main thread", async () => {
    const x = [1, 2, 3];
    const request: TrainModelsRequest = {
      table: createDataTable(
        x.map((_, i) => 1000 + 3 * i),
        [
          ["cache_miss", x],
          ["cpu_cycles", x],
          ["cpu_instructions", x],
          ["platform_power", x.map((v) => 100 + 10 * v)],
        ],
      ),
      energySource: "acpi",
      featureGroup: "CounterOnly",
      outputType: "AbsPower",
      trainerNames: ["LinearRegressionTrainer", "KNeighborsRegressorTrainer", "LogisticRegressionTrainer"],
      testTimestampsSeconds: [1006],
      skipPublish: true,
    };
    const inThread = await runWith(inThreadFitter, request);
    const pooled = await runWith(pool, request);
    expect(pooled.results.map((r) => [r.trainerName, r.outcome, r.failureReason ?? ""])).toEqual([
      ["LinearRegressionTrainer", "succeeded", ""],
      ["KNeighborsRegressorTrainer", "failed", "platform: needs at least 6 training rows for 6 neighbours, got 2"],
      ["LogisticRegressionTrainer", "failed", "platform: needs at least 4 training rows for 4 parameters, got 2"],
    ]);
    expect(pooled.results).toEqual(inThread.results);
    expect(pooled.progress).toEqual(inThread.progress);
  });

  it("refuses work once closed", async () => {
    const closing = createFitPool(1);
    await closing.close();
    await expect(
      closing.fit({
        trainerName: "LinearRegressionTrainer",
        input: { rows: 0, cols: 0, values: new Float64Array() },
        scale: new Float64Array(),
        labels: [],
        timestamps: new Float64Array(),
        trainRows: new Uint32Array(),
        testRows: new Uint32Array(),
        features: [],
        components: [],
        featureGroup: "CounterOnly",
        seed: 0,
        previous: [],
        archive: {
          group: { pipelineName: "p", energySource: "rapl-sysfs", outputType: "AbsPower", featureGroup: "CounterOnly" },
          features: [],
          nodeType: 0,
        },
      }),
    ).rejects.toThrow("trainer-fit worker pool is closed");
  });

  it("runs on the main thread with 0 worker threads", () => {
    expect(createFitPool(0).concurrency).toBe(1);
    expect(pool.concurrency).toBe(2);
  });
});
