// Server tests: a replace-import whose archive yields no servable model is refused unless forced
// (issue 34 item 5), over gRPC and through `kepler-model models import --replace [--force]`.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createZip, zipFolderTree } from "../models/index.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { runCliCaptured } from "../../test/support/run-cli.js";
import { FIXTURE, type SeededRegistry, startSeededRegistry } from "../../test/support/seeded-registry.js";

let seeded: SeededRegistry;
let scratch: string;

beforeAll(async () => {
  seeded = await startSeededRegistry();
  scratch = await mkdtemp(join(tmpdir(), "empty-replace-"));
});

afterAll(async () => {
  await seeded.close();
  await rm(scratch, { recursive: true, force: true });
});

const modelNamesOf = async (pipelineName: string) =>
  (await seeded.registry.client.listModels({ pipelineName })).models.map((m) => m.modelName).sort();

// The fixture's metadata.json alone: a pipeline zip without any model.
const metadataOnlyZip = async () => createZip([{ name: "metadata.json", data: await readFile(join(FIXTURE, "metadata.json")) }]);

// Only the fixture's pickled model, which is skipped (not readable without Python): nothing servable.
const pickledOnlyZip = async () => {
  const path = "rapl-sysfs/AbsPower/BPFOnly/GradientBoostingRegressorTrainer_0.zip";
  return createZip([{ name: path, data: await readFile(join(FIXTURE, path)) }]);
};

const SERVED = ["ExponentialRegressionTrainer_0", "SGDRegressorTrainer_0", "SGDRegressorTrainer_0"];

describe("ImportPipeline replace with no models", () => {
  it("is refused with FAILED_PRECONDITION naming header.force, and the stored models stay", async () => {
    await importPipelineZip(seeded.registry, "keep-me", await zipFolderTree(FIXTURE));
    expect(await modelNamesOf("keep-me")).toEqual(SERVED);
    await expect(importPipelineZip(seeded.registry, "keep-me", await metadataOnlyZip(), { replace: true })).rejects.toMatchObject(
      {
        code: Status.FAILED_PRECONDITION,
        details:
          'pipeline "keep-me": the archive holds no servable model, so replacing would remove all 3 stored models; set force to do that',
      },
    );
    // An archive whose only model is skipped is refused the same way.
    await expect(importPipelineZip(seeded.registry, "keep-me", await pickledOnlyZip(), { replace: true })).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
    });
    expect(await modelNamesOf("keep-me")).toEqual(SERVED);
  });

  it("with force wipes the pipeline's models", async () => {
    await importPipelineZip(seeded.registry, "wipe-me", await zipFolderTree(FIXTURE));
    const response = await importPipelineZip(seeded.registry, "wipe-me", await metadataOnlyZip(), {
      replace: true,
      force: true,
    });
    expect(response.importedModelCount).toBe(0);
    expect(await modelNamesOf("wipe-me")).toEqual([]);
  });

  it("a replace that brings models needs no force (only the missing ones go)", async () => {
    await importPipelineZip(seeded.registry, "shrink", await zipFolderTree(FIXTURE));
    const acpiOnly = "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0";
    const zip = createZip(
      await Promise.all(
        [`${acpiOnly}.zip`, `${acpiOnly}.json`].map(async (name) => ({ name, data: await readFile(join(FIXTURE, name)) })),
      ),
    );
    const response = await importPipelineZip(seeded.registry, "shrink", zip, { replace: true });
    expect(response.importedModelCount).toBe(1);
    expect(await modelNamesOf("shrink")).toEqual(["SGDRegressorTrainer_0"]);
  });

  it("kepler-model models import --replace refuses an empty folder; --force goes through", async () => {
    await importPipelineZip(seeded.registry, "cli-pipe", await zipFolderTree(FIXTURE));
    const folder = join(scratch, "cli-pipe");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "metadata.json"), await readFile(join(FIXTURE, "metadata.json")));
    const base = ["models", "import", folder, "--replace", "--registry-address", seeded.handle.address];
    const refused = await runCliCaptured(base);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'kepler-model models import: FAILED_PRECONDITION: pipeline "cli-pipe": the archive holds no servable model, so replacing would remove all 3 stored models; set force to do that\n',
    );
    expect(await modelNamesOf("cli-pipe")).toEqual(SERVED);
    const forced = await runCliCaptured([...base, "--force"]);
    expect([forced.code, forced.stdout]).toEqual([0, "imported pipeline cli-pipe: 0 models served, 0 skipped\n"]);
    expect(await modelNamesOf("cli-pipe")).toEqual([]);
  });
});
