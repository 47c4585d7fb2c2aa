// Idle profiles (issue 13 row 5), end to end over the real services: a pipeline run with idle data keeps
// the reference's profile/<source>.json in the pipeline folder, later runs of that pipeline and node type
// isolate with it (the default isolator is profile), and any other node type or pipeline uses min.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { describe, expect, it } from "vitest";
import { createRegistryClient } from "../../services/registry/client.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { recordedResponseText } from "../support/extractor-fixtures.js";
import { LINEAR } from "../support/linear-group-checks.js";
import { failedResults, runPipelineStream } from "../support/pipeline-runs.js";

const mesh = useE2eMesh("feature-groups-profiles-");

describe("row 5: idle profiles are kept in the pipeline folder and reused; the default isolator is profile, else min", () => {
  const dynTable = (pipeline: string) =>
    readFile(
      join(mesh.modelPath, pipeline, "preprocessed_data", "preprocess_dyn_default_profile_rapl-sysfs_CounterOnly.csv"),
      "utf8",
    );
  const metadataOf = async (pipeline: string) =>
    JSON.parse(await readFile(join(mesh.modelPath, pipeline, "metadata.json"), "utf8")) as Record<string, unknown>;
  const options = {
    energySources: ["rapl-sysfs"],
    featureGroups: ["CounterOnly"],
    absTrainerNames: [],
    dynTrainerNames: [LINEAR],
  };

  it("run 1 stores profile/<source>.json from the idle recording; run 2 without it isolates the same; other node types and pipelines use min", async () => {
    const coremark = recordedResponseText("coremark");
    const first = await runPipelineStream(
      mesh,
      { ...options, pipelineName: "row5" },
      { response: coremark, idle: recordedResponseText("idle") },
    );
    expect(failedResults(first)).toEqual([]);
    // The reference's profile format, one file per source; the corrected idle profile of idle.json
    // (services/isolator/server.test.ts): package min 101.977 W x 14.5/18 s, max 170.837 W x 14.5/15 s.
    const stored = JSON.parse(await readFile(join(mesh.modelPath, "row5", "profile", "rapl-sysfs.json"), "utf8"));
    expect(Object.keys(stored)).toEqual(["package", "core", "uncore", "dram"]);
    expect(Object.keys(stored.package)).toEqual(["0"]);
    expect(stored.package["0"].min_watt).toBeCloseTo((101.97703448275821 * 14.5) / 18, 9);
    expect(stored.package["0"].max_watt).toBeCloseTo((170.8373103448278 * 14.5) / 15, 9);
    expect(stored.package["0"]["#unit"]).toBe(1);
    expect(await metadataOf("row5")).toMatchObject({ isolator: "profile", isolators: { "rapl-sysfs/CounterOnly": "profile" } });
    const firstTable = await dynTable("row5");

    // The registry lists them.
    const registry = createRegistryClient(mesh.address("registry"));
    try {
      const { files } = await registry.client.getPipelineProfiles({ pipelineName: "row5" });
      expect(files.map((file) => file.path)).toEqual(["profile/background_containers.json", "profile/rapl-sysfs.json"]);
      expect(Object.keys(JSON.parse(Buffer.from(files[0]!.data).toString()))).toEqual(["0"]);
      const missing = await registry.client.getPipelineProfiles({ pipelineName: "no_such_pipeline" }).catch((e: unknown) => e);
      expect((missing as ClientError).code).toBe(Status.NOT_FOUND);
    } finally {
      registry.close();
    }

    // Run 2: no idle recording; the stored profile gives the same isolated table and model.
    const second = await runPipelineStream(mesh, { ...options, pipelineName: "row5" }, { response: coremark });
    expect(failedResults(second)).toEqual([]);
    expect(second.summary.notices).toContain(
      "isolating with the 4 idle profile(s) stored in profile/ (node types without one use min)",
    );
    expect(await dynTable("row5")).toBe(firstTable);
    expect(second.results[0]!.maeWatts).toBe(first.results[0]!.maeWatts);

    // Node type 3 has no profile in this pipeline: min, and metadata.json says so.
    const otherType = await runPipelineStream(mesh, { ...options, pipelineName: "row5", nodeType: 3 }, { response: coremark });
    expect(failedResults(otherType)).toEqual([]);
    expect(await metadataOf("row5")).toMatchObject({ isolator: "min", isolators: { "rapl-sysfs/CounterOnly": "min" } });

    // Another pipeline has no stored profile: min.
    const other = await runPipelineStream(mesh, { ...options, pipelineName: "row5_other" }, { response: coremark });
    expect(failedResults(other)).toEqual([]);
    expect(await metadataOf("row5_other")).toMatchObject({ isolator: "min", isolators: { "rapl-sysfs/CounterOnly": "min" } });
  }, 300_000);
});
