// Server tests of ImportPipeline and ExportPipeline (kepler-model-db layout) on the shared seeded registry.
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeTypeMatchKind } from "../generated/kepler/model/v1/model.js";
import { createZip, readZip, zipFolderTree } from "../models/index.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { FIXTURE, model, type SeededRegistry, selectFrom, startSeededRegistry } from "../../test/support/seeded-registry.js";

let dir: string;
let registry: SeededRegistry["registry"];
let seeded: SeededRegistry;

beforeAll(async () => {
  seeded = await startSeededRegistry();
  ({ dir, registry } = seeded);
});

afterAll(async () => {
  await seeded.close();
});

const select = (request: Record<string, unknown>) => selectFrom(registry)(request);

describe("ImportPipeline (kepler-model-db layout)", () => {
  it("imports a pipeline folder: weight models served, pickled models skipped with a notice", async () => {
    const response = await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
    expect(response.pipeline?.pipelineName).toBe("ec2-fixture");
    expect(response.pipeline?.energySources).toEqual(["acpi", "rapl-sysfs"]);
    expect(response.pipeline?.nodeTypeCount).toBe(6);
    expect(response.importedModelCount).toBe(3);
    expect(response.skippedModels).toEqual([
      {
        path: "rapl-sysfs/AbsPower/BPFOnly/GradientBoostingRegressorTrainer_0",
        reason: "pickled scikit-learn model without weight.json: not readable without Python",
      },
    ]);
    const acpi = await select({ energySource: "acpi", pipelineName: "ec2-fixture", weight: true, metadataOnly: false });
    expect(acpi.metadata?.modelName).toBe("SGDRegressorTrainer_0");
    expect(acpi.metadata?.machineSpec).toEqual({
      processor: "intel_xeon_platinum_8259cl",
      cores: 96,
      chips: 2,
      memoryGib: 377,
      frequencyMhz: 3500,
      vendor: "",
      threadsPerCore: 0,
    });
    expect(JSON.parse(acpi.payload?.value as string)).toEqual(
      JSON.parse(await readFile(join(FIXTURE, "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.json"), "utf8")),
    );
    const rapl = await select({ pipelineName: "ec2-fixture", weight: true });
    expect([rapl.metadata?.modelName, rapl.metadata?.maeWatts]).toEqual(["SGDRegressorTrainer_0", 60.78]);
    await expect(importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE))).rejects.toMatchObject({
      code: Status.ALREADY_EXISTS,
      details: 'pipeline "ec2-fixture" already exists; set replace to overwrite it',
    });
  });

  it("imports a streamed pipeline zip and exports it again", async () => {
    const files: Array<{ name: string; data: Uint8Array }> = [];
    const walk = async (path: string): Promise<void> => {
      for (const entry of await readdir(path)) {
        const full = join(path, entry);
        if ((await stat(full)).isDirectory()) await walk(full);
        else files.push({ name: relative(FIXTURE, full), data: await readFile(full) });
      }
    };
    await walk(FIXTURE);
    const zip = createZip(files);
    const response = await registry.client.importPipeline(
      (async function* () {
        yield { content: { $case: "header" as const, value: { pipelineName: "streamed", serverPath: "", replace: false } } };
        yield { content: { $case: "archiveChunk" as const, value: Buffer.from(zip) } };
      })(),
    );
    expect([response.importedModelCount, response.skippedModels.length]).toEqual([3, 1]);
    const chunks: Buffer[] = [];
    for await (const message of registry.client.exportPipeline({ pipelineName: "streamed" })) chunks.push(message.archiveChunk);
    const names = readZip(Buffer.concat(chunks))
      .map((e) => e.name)
      .sort();
    expect(names).toEqual([
      "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.json",
      "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip",
      "acpi_AbsPower_model_metadata.csv",
      "metadata.json",
      "node_type_index.json",
      "rapl-sysfs/AbsPower/BPFOnly/ExponentialRegressionTrainer_0.json",
      "rapl-sysfs/AbsPower/BPFOnly/ExponentialRegressionTrainer_0.zip",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip",
      "rapl-sysfs_AbsPower_model_metadata.csv",
    ]);
  });

  it("exports a pipeline that never had an index or metadata with both, so the reference server can serve it", async () => {
    await publishTestArchive(
      registry,
      buildTestArchive(model("SGDRegressorTrainer", 0, 9, { pipelineName: "bare", withWeights: true })),
    );
    const chunks: Buffer[] = [];
    for await (const message of registry.client.exportPipeline({ pipelineName: "bare" })) chunks.push(message.archiveChunk);
    const entries = new Map(readZip(Buffer.concat(chunks)).map((e) => [e.name, new TextDecoder().decode(e.data)]));
    expect([...entries.keys()].sort()).toEqual([
      "metadata.json",
      "node_type_index.json",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip",
      "rapl-sysfs_AbsPower_model_metadata.csv",
    ]);
    expect(JSON.parse(entries.get("node_type_index.json") as string)).toEqual({});
    const metadata = JSON.parse(entries.get("metadata.json") as string);
    expect([metadata.name, metadata.abs_trainers, metadata.dyn_trainers]).toEqual(["bare", ["SGDRegressorTrainer"], []]);
    // The sibling keeps the reference's shape: no model_name (Kepler derives it from the URL).
    expect(Object.keys(JSON.parse(entries.get("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json") as string))).toEqual([
      "package",
      "core",
      "uncore",
      "dram",
    ]);
  });

  it("names the model in every served .../weight.json, imported curve fits included (Kepler panics without)", async () => {
    const group = join(dir, "ec2-fixture/rapl-sysfs/AbsPower/BPFOnly");
    for (const name of ["ExponentialRegressionTrainer_0", "SGDRegressorTrainer_0"]) {
      const served = JSON.parse(await readFile(join(group, name, "weight.json"), "utf8"));
      const sibling = JSON.parse(await readFile(join(FIXTURE, "rapl-sysfs/AbsPower/BPFOnly", `${name}.json`), "utf8"));
      expect(served).toEqual({ model_name: name, ...sibling });
      expect(Object.keys(served)[0]).toBe("model_name");
    }
  });

  it("matches machine specs against an imported index (§6.5 examples)", async () => {
    const spec = (s: Record<string, unknown>) => ({
      processor: "",
      cores: 0,
      chips: 0,
      memoryGib: 0,
      frequencyMhz: 0,
      vendor: "",
      threadsPerCore: 0,
      ...s,
    });
    const cores = await registry.client.matchMachineSpec({
      pipelineName: "ec2-fixture",
      spec: spec({ cores: 96 }),
      looseSearch: true,
    });
    expect(cores.match).toMatchObject({
      nodeType: 0,
      uncertainty: 0.75,
      looseness: 0,
      kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_COVER,
    });
    const loose = await registry.client.matchMachineSpec({
      pipelineName: "ec2-fixture",
      spec: spec({ processor: "intel_xeon_platinum_8259", cores: 96, chips: 2, memoryGib: 377, frequencyMhz: 3500 }),
      looseSearch: true,
    });
    expect(loose.match?.nodeType).toBe(0);
    expect(loose.match?.looseness.toFixed(3)).toBe("0.331");
    const types = await registry.client.listNodeTypes({ pipelineName: "ec2-fixture" });
    expect(types.nodeTypes.map((t) => [t.nodeType, t.spec?.cores, t.members[0]])[5]).toEqual([
      5,
      96,
      "m7i.metal-24xl-ami-0e4d0bb9670ea8db0",
    ]);
  });
});
