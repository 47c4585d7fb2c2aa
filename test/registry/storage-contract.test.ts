// The registry's storage contract (services/registry/storage/model-storage.ts): the same cases against
// every storage, the local folder and S3 on a real Ceph radosgw (test/support/radosgw.ts). Without
// radosgw the S3 cases are skipped, naming why (CI counts the skips as failures). A new backend
// adds its entry to BACKENDS.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FailedPreconditionError, InvalidInputError } from "../../services/domain/errors.js";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { ModelCatalogue } from "../../services/registry/domain/model-catalogue.js";
import { listKeptVersions, readKeptVersion } from "../../services/registry/domain/model-versions.js";
import { rollbackModel } from "../../services/registry/domain/rollback-model.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";
import type { ModelStorage } from "../../services/registry/storage/model-storage.js";
import { S3ModelStorage } from "../../services/registry/storage/s3/s3-model-storage.js";
import { RADOSGW_TOOLS, type RadosgwInstance } from "../support/radosgw.js";
import { needs, type SystemTool } from "../support/system-tools.js";
import { files, heldOutMaeOf, heldOutModel, LIFECYCLE, LOCATION, quiet, servableModel } from "../support/contract-models.js";
import { startRadosgwWithBucket } from "../support/radosgw-bucket.js";

interface Backend {
  name: string;
  /** The system tools the backend runs (its cases are skipped, naming them, when one is missing). */
  tools?: readonly SystemTool[];
  /** Whether the listing's signature follows from the bytes (contentSignature). */
  contentSignatures: boolean;
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /** A new, empty storage. */
  open(): Promise<ModelStorage>;
}

const scratch: string[] = [];
async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "storage-contract-"));
  scratch.push(dir);
  return dir;
}

let rgw: RadosgwInstance | undefined;
let prefixes = 0;
const BACKENDS: Backend[] = [
  {
    name: "local folder",
    contentSignatures: false,
    open: async () => LocalFolderStorage.open(join(await scratchDir(), "models"), quiet),
  },
  {
    name: "S3 (Ceph radosgw)",
    tools: RADOSGW_TOOLS,
    contentSignatures: true,
    async start() {
      rgw = await startRadosgwWithBucket("contract");
    },
    async stop() {
      await rgw?.stop();
    },
    // Each storage is a fresh prefix of one bucket.
    open: async () =>
      new S3ModelStorage(
        new ObjectBucket(createS3Client({ endpoint: rgw!.endpoint, region: "us-east-1", requestTimeoutMs: 10_000 }), {
          bucket: "contract",
          prefix: `case-${++prefixes}`,
        }),
      ),
  },
];

afterAll(async () => {
  for (const dir of scratch.splice(0)) await rm(dir, { recursive: true, force: true });
});

for (const backend of BACKENDS) {
  describe(`the ${backend.name} storage`, needs(...(backend.tools ?? [])), () => {
    const opened: ModelStorage[] = [];
    const open = async () => {
      const storage = await backend.open();
      opened.push(storage);
      return storage;
    };
    beforeAll(async () => backend.start?.(), 180_000);
    afterAll(async () => {
      for (const storage of opened.splice(0)) storage.close();
      await backend.stop?.();
    });

    it("starts empty: nothing listed, nothing to read, no pipeline", async () => {
      const storage = await open();
      expect(await storage.list()).toEqual({ pipelineNames: [], models: [], pipelineFiles: [] });
      expect(await storage.readModel(LOCATION)).toBeUndefined();
      expect(await storage.readArchive(LOCATION)).toBeUndefined();
      expect(await storage.readPipelineFile("std", "metadata.json")).toBeUndefined();
      expect(await storage.listPipelineFiles("std", "")).toBeUndefined();
    });

    it("lists a written model with the signature the write returned and reads back its bytes", async () => {
      const storage = await open();
      const written = await storage.writeModel(LOCATION, files("v1"));
      const listing = await storage.list();
      expect(listing.pipelineNames).toEqual(["std"]);
      expect(listing.models.map(({ location, signature }) => ({ location, signature }))).toEqual([
        { location: LOCATION, signature: written.signature },
      ]);
      const read = await storage.readModel(LOCATION);
      expect(Buffer.from(read!.zip).toString()).toBe("zip v1");
      expect(read!.weightJson).toBe('{"weights":"v1"}');
      expect(Buffer.from((await storage.readArchive(LOCATION))!).toString()).toBe("zip v1");
      expect(storage.contentSignature({ zip: read!.zip, weightJson: read!.weightJson })).toBe(
        backend.contentSignatures ? written.signature : undefined,
      );
    });

    it("replaces a model whole: a new signature, new bytes, and a weight sibling left out is removed", async () => {
      const storage = await open();
      const first = await storage.writeModel(LOCATION, files("v1"));
      const second = await storage.writeModel(LOCATION, files("v2", false));
      expect(second.signature).not.toBe(first.signature);
      expect((await storage.list()).models.map((m) => m.signature)).toEqual([second.signature]);
      expect(await storage.readModel(LOCATION)).toEqual({ zip: Buffer.from("zip v2") });
    });

    // The zip is what makes a model: at "staged" readers still get the previous zip. (S3 has already
    // replaced the weight sibling by then; a replica pulling in that window corrects itself at its next pull.)
    it("reports the staged step before the new zip is visible, and the previous zip stays readable until then", async () => {
      const storage = await open();
      await storage.writeModel(LOCATION, files("v1"));
      const seenAtStaged: string[] = [];
      await storage.writeModel(LOCATION, files("v2"), async (step) => {
        if (step === "staged") seenAtStaged.push(Buffer.from((await storage.readArchive(LOCATION))!).toString());
      });
      expect(seenAtStaged).toEqual(["zip v1"]);
      expect(Buffer.from((await storage.readArchive(LOCATION))!).toString()).toBe("zip v2");
    });

    it("removes a model (a missing one is no error)", async () => {
      const storage = await open();
      await storage.writeModel(LOCATION, files("v1"));
      await storage.removeModel(LOCATION);
      await storage.removeModel(LOCATION);
      expect((await storage.list()).models).toEqual([]);
      expect(await storage.readModel(LOCATION)).toBeUndefined();
    });

    it("keeps pipeline files: listed with their signatures (model tables aside), read back, listed per folder", async () => {
      const storage = await open();
      const signatures: Record<string, string> = {};
      for (const [path, data] of [
        ["metadata.json", '{"name":"std"}'],
        ["node_type_index.json", "{}"],
        ["profile/acpi.json", '{"idle":1}'],
        ["report/chart.svg", "<svg/>"],
      ] as const)
        signatures[path] = await storage.writePipelineFile("std", path, data);
      await storage.writePipelineFile("std", "acpi_AbsPower_model_metadata.csv", "model_name\n");
      const listing = await storage.list();
      expect(listing.pipelineNames).toEqual(["std"]);
      expect(Object.fromEntries(listing.pipelineFiles.map((f) => [`${f.pipelineName}/${f.path}`, f.signature]))).toEqual({
        "std/metadata.json": signatures["metadata.json"],
        "std/node_type_index.json": signatures["node_type_index.json"],
        "std/profile/acpi.json": signatures["profile/acpi.json"],
        "std/report/chart.svg": signatures["report/chart.svg"],
      });
      expect((await storage.readPipelineFile("std", "profile/acpi.json"))?.toString()).toBe('{"idle":1}');
      expect(await storage.listPipelineFiles("std", "")).toEqual([
        "acpi_AbsPower_model_metadata.csv",
        "metadata.json",
        "node_type_index.json",
      ]);
      expect(await storage.listPipelineFiles("std", "report")).toEqual(["chart.svg"]);
      expect(await storage.listPipelineFiles("std", "missing")).toEqual([]);
      await storage.removePipelineFile("std", "acpi_AbsPower_model_metadata.csv");
      await storage.removePipelineFile("std", "acpi_AbsPower_model_metadata.csv");
      expect(await storage.readPipelineFile("std", "acpi_AbsPower_model_metadata.csv")).toBeUndefined();
    });

    it("refuses pipeline file paths that leave the pipeline", async () => {
      const storage = await open();
      const refused = await storage.writePipelineFile("std", "../escape.json", "{}").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InvalidInputError);
      expect((refused as InvalidInputError).message).toBe('path: "std/../escape.json" leaves the pipeline folder');
      expect((await storage.list()).pipelineFiles).toEqual([]);
    });

    it("serves a catalogue: a published model is found again by a catalogue opened later over the same storage", async () => {
      const storage = await open();
      const first = await ModelCatalogue.open(storage, { logger: quiet });
      const model = servableModel(2.5);
      await first.publish({ location: LOCATION, ...model });
      await first.writePipelineFile("std", "metadata.json", '{"name":"std"}');
      first.close();
      const second = await ModelCatalogue.open(storage, { logger: quiet });
      expect(second.list().map((m) => [m.location.modelName, m.maeWatts, m.format, m.weightJson])).toEqual([
        [LOCATION.modelName, 2.5, "weights", model.weightJson],
      ]);
      expect(second.pipelines().map((p) => [p.name, p.metadataText, p.modelCount])).toEqual([["std", '{"name":"std"}', 1]]);
      expect(Buffer.from(await second.readArchive(second.get(LOCATION))).equals(Buffer.from(model.zip))).toBe(true);
      expect((await storage.readPipelineFile("std", "acpi_AbsPower_model_metadata.csv"))?.toString()).toMatch(
        /\n0,LinearRegressionTrainer_0,/,
      );
      await second.remove(LOCATION);
      expect((await storage.list()).models).toEqual([]);
      expect(await storage.readPipelineFile("std", "acpi_AbsPower_model_metadata.csv")).toBeUndefined();
      second.close();
    });
    it("keeps the last 3 versions of a model where kepler-model-db readers never look; the gate refuses a worse one", async () => {
      const storage = await open();
      const catalogue = await ModelCatalogue.open(storage, { logger: quiet, lifecycle: LIFECYCLE });
      for (const mae of [2.0, 1.9, 1.8, 1.7]) await catalogue.publish({ location: LOCATION, ...heldOutModel(mae) });
      const kept = await listKeptVersions(storage, LOCATION);
      const keptMaes = await Promise.all(
        kept.map(async (id) => heldOutMaeOf((await readKeptVersion(storage, LOCATION, id))!.zip)),
      );
      expect(keptMaes).toEqual([1.9, 1.8]);
      const listing = await storage.list();
      expect(listing.models.map((m) => m.location)).toEqual([LOCATION]);
      expect(listing.pipelineFiles.filter((f) => f.path.includes("versions"))).toEqual([]);
      expect(await storage.listPipelineFiles("std", "")).toEqual(["acpi_AbsPower_model_metadata.csv"]);
      const refused = await catalogue.publish({ location: LOCATION, ...heldOutModel(1.9) }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(FailedPreconditionError);
      expect((refused as Error).message).toBe(
        "publish of std/acpi/AbsPower/BPFOnly/LinearRegressionTrainer_0 refused by the gate: held-out MAE of platform " +
          "1.9000 W is worse than the serving version's 1.7000 W by more than 10 % (limit 1.8700 W)",
      );
      expect(catalogue.get(LOCATION).maeWatts).toBe(1.7);
      expect(await listKeptVersions(storage, LOCATION)).toEqual(kept);
      await catalogue.publish({ location: LOCATION, ...heldOutModel(1.85) });
      expect(catalogue.get(LOCATION).maeWatts).toBe(1.85);
      catalogue.close();
    });

    it("rolls back to the previous version, announces it, and refuses when none is left", async () => {
      const storage = await open();
      const catalogue = await ModelCatalogue.open(storage, { logger: quiet, lifecycle: LIFECYCLE });
      const first = heldOutModel(1.0);
      await catalogue.publish({ location: LOCATION, ...first });
      await catalogue.publish({ location: LOCATION, ...heldOutModel(1.05) });
      const announced: Array<[string, number | undefined]> = [];
      catalogue.events.subscribe((event) => announced.push([event.kind, event.model.maeWatts]));
      const result = await rollbackModel(catalogue, LOCATION);
      expect([result.model.maeWatts, result.remainingVersions, result.fromVersion === result.toVersion]).toEqual([1.0, 0, false]);
      expect(announced).toEqual([["published", 1.0]]);
      expect(Buffer.from((await storage.readArchive(LOCATION))!).equals(Buffer.from(first.zip))).toBe(true);
      expect(await listKeptVersions(storage, LOCATION)).toEqual([]);
      const reopened = await ModelCatalogue.open(storage, { logger: quiet });
      expect(reopened.get(LOCATION).maeWatts).toBe(1.0);
      reopened.close();
      const none = await rollbackModel(catalogue, LOCATION).catch((error: unknown) => error);
      expect((none as Error).message).toBe(
        "model std/acpi/AbsPower/BPFOnly/LinearRegressionTrainer_0 has no earlier version to roll back to",
      );
      catalogue.close();
    });
  });
}
