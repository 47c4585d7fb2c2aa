// Domain test: the estimator's model cache over a counting fake ModelSource (a stand-in for the
// registry's SelectModel + GetModelArchive): the LRU bound, and that a publish costs no reload up
// front and at most one per cached query used again.
import { describe, expect, it } from "vitest";
import { NotFoundError, UnavailableError } from "../../domain/errors.js";
import { type LoadedModel, type ModelQuery, type ModelSource, queryKey, sameQuery } from "./loaded-model.js";
import { DEFAULT_MODEL_CACHE_ENTRIES, ModelCache } from "./model-cache.js";
import type { Predictor } from "./predictor.js";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Serves model `M<version>` for every query and counts loads; `fail` makes the next loads throw. */
function countingSource() {
  const state = { loads: 0, version: 1, fail: undefined as Error | undefined };
  const source: ModelSource<null> = {
    async load(): Promise<LoadedModel<null>> {
      state.loads++;
      await Promise.resolve();
      if (state.fail !== undefined) throw state.fail;
      return {
        modelName: `M${state.version}`,
        maeWatts: 1,
        featureGroup: "BPFOnly",
        modelCores: 0,
        features: ["bpf_cpu_time_ms"],
        predictor: {} as Predictor,
        provenance: null,
      };
    },
  };
  return { source, state };
}

const query = (i: number): ModelQuery => ({
  featureNames: [`feature_${i}`],
  unavailableFeatureNames: [],
  outputType: "AbsPower",
  energySource: "rapl-sysfs",
  trainerName: "",
  filter: "",
  pipelineName: "",
  machineSpec: { processor: "", cores: 0, chips: 0, memoryGib: 0, frequencyMhz: 0 },
});

describe("ModelCache", () => {
  it("tells each query field apart when it reuses the key of the query before", async () => {
    // Names the model after the query it was loaded for, so a wrong reuse of the previous key shows.
    const source: ModelSource<null> = {
      async load(q): Promise<LoadedModel<null>> {
        return { ...(await countingSource().source.load(q)), modelName: queryKey(q) };
      },
    };
    const cache = new ModelCache(source, quiet);
    const base = query(0);
    const variants: ModelQuery[] = [
      { ...base, featureNames: ["feature_0", "cpu_cycles"] },
      { ...base, featureNames: ["feature_1"] },
      { ...base, unavailableFeatureNames: ["cpu_cycles"] },
      { ...base, outputType: "DynPower" },
      { ...base, energySource: "acpi" },
      { ...base, trainerName: "LinearRegressionTrainer" },
      { ...base, filter: "mae<10" },
      { ...base, pipelineName: "other" },
      ...(["processor", "cores", "chips", "memoryGib", "frequencyMhz"] as const).map((field) => ({
        ...base,
        machineSpec: { ...base.machineSpec, [field]: field === "processor" ? "intel_xeon" : 2 },
      })),
    ];
    for (const variant of variants) {
      expect(sameQuery(base, variant)).toBe(false);
      await cache.get(variant);
      await cache.get(base);
      // Alternating: each lookup follows a different query.
      expect([cache.cached(variant)?.modelName, cache.cached(base)?.modelName]).toEqual([queryKey(variant), queryKey(base)]);
    }
    // A caller reusing its list for the next query is not taken for the query before.
    const reused = { ...base, featureNames: ["feature_5"] };
    await cache.get(reused);
    (reused.featureNames as string[])[0] = "feature_9";
    expect(cache.cached(reused)).toBeUndefined(); // not loaded yet, not feature_5's model
    expect((await cache.get(reused)).modelName).toBe(queryKey({ ...base, featureNames: ["feature_9"] }));
    // Equal content in other arrays (a new request decodes new ones) is the same query.
    expect(sameQuery(base, { ...base, featureNames: ["feature_0"], machineSpec: { ...base.machineSpec } })).toBe(true);
  });

  it("keeps at most maxEntries queries, evicting the least recently used", async () => {
    const { source, state } = countingSource();
    const cache = new ModelCache(source, quiet, { maxEntries: 3 });
    for (const i of [0, 1, 2]) await cache.get(query(i));
    await cache.get(query(0)); // 0 is now the most recently used; 1 the least
    await cache.get(query(3));
    expect([cache.size, state.loads]).toEqual([3, 4]);
    await cache.get(query(0));
    await cache.get(query(2));
    expect(state.loads).toBe(4);
    await cache.get(query(1)); // evicted: loaded again
    expect([cache.size, state.loads]).toEqual([3, 5]);
  });

  it("repeated hits on one query and loads in between keep the least-recently-used order", async () => {
    const { source, state } = countingSource();
    const cache = new ModelCache(source, quiet, { maxEntries: 2 });
    await cache.get(query(0));
    await cache.get(query(0));
    await cache.get(query(1)); // 1 is now the most recent
    expect(cache.cached(query(0))?.modelName).toBe("M1"); // and now 0 again
    expect(cache.cached(query(0))?.modelName).toBe("M1");
    await cache.get(query(2)); // evicts 1, the least recently used
    expect(state.loads).toBe(3);
    expect(cache.cached(query(0))).toBeDefined();
    expect(cache.cached(query(1))).toBeUndefined();
  });

  it("20,000 unique queries stay within the default bound; a publish then costs no reload up front", async () => {
    const { source, state } = countingSource();
    const cache = new ModelCache(source, quiet);
    for (let i = 0; i < 20_000; i++) await cache.get(query(i));
    expect([cache.size, state.loads]).toEqual([DEFAULT_MODEL_CACHE_ENTRIES, 20_000]);
    state.version = 2;
    expect(cache.refresh()).toBe(DEFAULT_MODEL_CACHE_ENTRIES);
    await cache.settled();
    expect(state.loads).toBe(20_000);
    // Ten cached queries used again, each twice at once: one background reload each, the old model meanwhile.
    const first = await Promise.all(
      [...Array(10).keys()].flatMap((j) => [cache.get(query(19_999 - j)), cache.get(query(19_999 - j))]),
    );
    expect(first.every((model) => model.modelName === "M1")).toBe(true);
    await cache.settled();
    expect(state.loads).toBe(20_010);
    expect((await cache.get(query(19_999))).modelName).toBe("M2");
    expect((await cache.get(query(19_990))).modelName).toBe("M2");
    expect(state.loads).toBe(20_010);
  });

  it("refreshes only the queries the event affects", async () => {
    const { source, state } = countingSource();
    const cache = new ModelCache(source, quiet);
    for (const i of [0, 1, 2, 3]) await cache.get(query(i));
    expect(cache.refresh((q) => q.featureNames[0] === "feature_2")).toBe(1);
    for (const i of [0, 1, 2, 3]) await cache.get(query(i));
    await cache.settled();
    expect(state.loads).toBe(5);
  });

  it("a refresh during a reload leaves the entry stale, so the next use reloads again", async () => {
    const { source, state } = countingSource();
    const cache = new ModelCache(source, quiet);
    await cache.get(query(0));
    cache.refresh();
    state.version = 2;
    await cache.get(query(0)); // starts reload 1
    cache.refresh(); // a second publish while reload 1 runs
    state.version = 3;
    await cache.settled();
    expect((await cache.get(query(0))).modelName).toBe("M2"); // stale still: starts reload 2
    await cache.settled();
    expect((await cache.get(query(0))).modelName).toBe("M3");
    expect(state.loads).toBe(3);
  });

  it("a failed reload keeps the old model; a model gone from the source drops the entry", async () => {
    const { source, state } = countingSource();
    const cache = new ModelCache(source, quiet);
    await cache.get(query(0));
    cache.refresh();
    state.fail = new UnavailableError("registry", "down");
    expect((await cache.get(query(0))).modelName).toBe("M1");
    await cache.settled();
    expect(cache.size).toBe(1);
    expect((await cache.get(query(0))).modelName).toBe("M1"); // still stale: tried again
    await cache.settled();
    expect(cache.size).toBe(1);
    state.fail = new NotFoundError("model");
    expect((await cache.get(query(0))).modelName).toBe("M1");
    await cache.settled();
    expect(cache.size).toBe(0);
    expect(state.loads).toBe(4);
  });
});
