// Shared by the registry's crash-safety tests: the children that publish and get killed, the model
// versions they write, and the inputs they read.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readZip } from "../../services/models/index.js";
import { buildTestArchive, type TestArchive, type TestModelSpec } from "./model-archives.js";

/** A child publishing archives into a model folder until killed (test/support/publish-child.ts). */
export const PUBLISH_CHILD = new URL("./publish-child.ts", import.meta.url).pathname;
/** A child running RunPipeline loops in a mesh until killed (test/support/pipeline-child.ts). */
export const PIPELINE_CHILD = new URL("./pipeline-child.ts", import.meta.url).pathname;
/** The model group the publish children write. */
export const GROUP = "std/rapl-sysfs/AbsPower/BPFOnly";

/** A version of the crash tests' model: a KNN model whose size grows with `rows`. */
export function version(maeWatts: number, rows: number): TestArchive {
  // Its size grows with `rows`, so writing it takes a while.
  const x = Array.from({ length: rows }, (_, i) => i / rows);
  const spec: TestModelSpec = {
    pipelineName: "std",
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName: "KNeighborsRegressorTrainer",
    nodeType: 0,
    features: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
    scale: [1, 1],
    maeWatts,
    model: { kind: "knn", k: 3, fitXColumns: [x, x], fitY: [0, 1, 2, 3].map((c) => x.map((v) => v * 100 + c + maeWatts)) },
  };
  return buildTestArchive(spec);
}

/** Writes the model location and each archive into `dir` for a child: [location, v0.zip, v1.zip...]. */
export async function writeInputs(dir: string, archives: TestArchive[]): Promise<string[]> {
  const location = join(dir, "location.json");
  await writeFile(location, JSON.stringify(archives[0]?.location));
  const paths = [location];
  for (const [i, archive] of archives.entries()) {
    const path = join(dir, `v${i}.zip`);
    await writeFile(path, archive.zip);
    paths.push(path);
  }
  return paths;
}

/** The metadata.json text inside a model zip. */
export const metadataOf = (zip: Uint8Array) =>
  new TextDecoder().decode(readZip(zip).find((e) => e.name === "metadata.json")?.data);
