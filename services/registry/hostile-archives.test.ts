// Server tests: hostile uploads to a real registry on 127.0.0.1:0. Every hostile zip is built here
// (createZip, then headers patched by hand where a writer would refuse); each must be refused with
// INVALID_ARGUMENT (or RESOURCE_EXHAUSTED for the upload bound) naming the bound, before anything is
// inflated or written, and nothing may appear outside MODEL_PATH.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { createZip, type ZipEntry } from "../models/index.js";
import { createRegistryClient } from "./client.js";
import { startRegistry } from "./main.js";
import { STORE_FORMAT_FILE } from "./storage/store-format.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { oneFeatureArchive } from "../../test/support/one-feature-archive.js";

const MIB = 1024 * 1024;
const LIMITS = { maxUploadBytes: 4 * MIB, zipMaxEntries: 100, zipMaxUncompressedBytes: 8 * MIB, zipMaxCompressionRatio: 200 };

let dir: string;
let handle: Awaited<ReturnType<typeof startRegistry>>;
let registry: ReturnType<typeof createRegistryClient>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hostile-"));
  handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [], ...LIMITS },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(handle.address);
});
afterAll(async () => {
  registry.close();
  await handle.close();
  await rm(dir, { recursive: true, force: true });
});

/** Offsets of each central directory record of a zip written by createZip. */
function centralRecords(zip: Buffer): number[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const offsets: number[] = [];
  let p = zip.readUInt32LE(end + 16);
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    offsets.push(p);
    p += 46 + zip.readUInt16LE(p + 28) + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return offsets;
}

/** Sets the uncompressed size an entry declares, in its local header and its central record. */
function declareSize(zip: Buffer, index: number, size: number): Buffer {
  const central = centralRecords(zip)[index] as number;
  zip.writeUInt32LE(size, central + 24);
  zip.writeUInt32LE(size, zip.readUInt32LE(central + 42) + 22);
  return zip;
}

const text = (s: string) => new TextEncoder().encode(s);
const pipelineFiles: ZipEntry[] = [{ name: "metadata.json", data: text('{"name":"p"}') }];

async function importError(zip: Uint8Array, name = "hostile") {
  return importPipelineZip(registry, name, zip).then(
    () => ({ code: Status.OK, details: "" }),
    (error: { code: Status; details: string }) => ({ code: error.code, details: error.details }),
  );
}

async function expectNothingWritten(): Promise<void> {
  expect(await readdir(dir)).toEqual(["models"]);
  // store-format.json is the store's own marker, written at start, not by an import
  const written = (await readdir(join(dir, "models"))).filter(
    (name) => !name.startsWith(".import-") && name !== STORE_FORMAT_FILE,
  );
  expect(written).toEqual([]);
}

describe("ImportPipeline refuses", () => {
  it("server_path, so a following ExportPipeline cannot read a server file", async () => {
    expect(
      await importPipelineZip(registry, "passwd", new Uint8Array(0), { serverPath: "/etc/passwd" }).catch((e) => e),
    ).toMatchObject({ code: Status.INVALID_ARGUMENT, details: "header.server_path: not accepted; stream the zip" });
    const exported = async () => {
      for await (const message of registry.client.exportPipeline({ pipelineName: "passwd" })) return message;
    };
    await expect(exported()).rejects.toMatchObject({ code: Status.NOT_FOUND, details: 'pipeline "passwd" not found' });
    await expectNothingWritten();
  });

  it("zip-slip entries", async () => {
    const zip = createZip([...pipelineFiles, { name: "acpi/../../../evil.json", data: text("{}") }]);
    expect(await importError(zip)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `archive_chunk: entry "acpi/../../../evil.json" has an unsafe path (zip-slip: '..', '.', empty parts, '\\' or NUL)`,
    });
    await expectNothingWritten();
  });

  it("absolute paths", async () => {
    const zip = createZip([...pipelineFiles, { name: "/tmp/evil.json", data: text("{}") }]);
    expect(await importError(zip)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `archive_chunk: entry "/tmp/evil.json" has an absolute path`,
    });
    await expectNothingWritten();
  });

  it("symbolic link entries", async () => {
    const zip = createZip([...pipelineFiles, { name: "acpi/link", data: text("/etc/passwd") }]);
    zip.writeUInt32LE((0o120777 << 16) >>> 0, (centralRecords(zip)[1] as number) + 38);
    expect(await importError(zip)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `archive_chunk: entry "acpi/link" is a symbolic link; links are not accepted`,
    });
    await expectNothingWritten();
  });

  it("too many entries", async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ name: `f${i}.txt`, data: text(String(i)) }));
    expect(await importError(createZip(many))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: "archive_chunk: holds 101 entries; at most 100 are accepted",
    });
  });

  it("an entry declaring more than the uncompressed bound", async () => {
    const zip = declareSize(createZip([...pipelineFiles, { name: "big.bin", data: text("x") }]), 1, 9 * MIB);
    expect(await importError(zip)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `archive_chunk: entry "big.bin" inflates to ${9 * MIB} bytes; at most ${8 * MIB} are accepted`,
    });
  });

  it("entries together over the uncompressed bound (each under it, ratio ~40)", async () => {
    // 3 MiB per entry: 100 random bytes in every 4 KiB block, so it compresses well but not like a bomb.
    const block = () => Buffer.concat(Array.from({ length: 768 }, () => Buffer.concat([randomBytes(100), Buffer.alloc(3996)])));
    const zip = createZip([0, 1, 2].map((i) => ({ name: `part${i}.bin`, data: block() })));
    expect(zip.byteLength).toBeLessThan(LIMITS.maxUploadBytes);
    expect(await importError(zip)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `archive_chunk: entries inflate to more than ${8 * MIB} bytes in total; at most ${8 * MIB} are accepted`,
    });
  });

  it("a zip bomb (one entry of zeros, ratio ~1000)", async () => {
    const zip = createZip([{ name: "zeros.bin", data: Buffer.alloc(6 * MIB) }]);
    const ratio = Math.round((6 * MIB) / (zip.byteLength - 30 - 46 - 22 - 2 * "zeros.bin".length));
    expect(await importError(zip)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: `archive_chunk: entry "zeros.bin" has a compression ratio of ${ratio}; at most 200 is accepted (zip bomb)`,
    });
  });

  it("a bomb that lies about its size is stopped at the declared size while inflating", async () => {
    const zip = declareSize(createZip([{ name: "zeros.bin", data: Buffer.alloc(6 * MIB) }]), 0, 1000);
    const result = await importError(zip);
    expect(result.code).toBe(Status.INVALID_ARGUMENT);
    expect(result.details).toMatch(/^archive_chunk: entry zeros\.bin is not valid DEFLATE data \(.+\)$/);
  });

  it("bad zip data: not a zip, a broken directory, broken DEFLATE data", async () => {
    expect(await importError(text("definitely not a zip"))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: "archive_chunk: not a ZIP archive (no end of central directory record)",
    });
    const broken = createZip(pipelineFiles);
    broken.writeUInt32LE(0x7fffffff, (centralRecords(broken)[0] as number) + 42);
    expect(await importError(broken)).toMatchObject({ code: Status.INVALID_ARGUMENT });
    const garbled = createZip([{ name: "a.json", data: text("a".repeat(1000)) }]);
    garbled.fill(0xff, 30 + "a.json".length, 30 + "a.json".length + 4);
    expect(await importError(garbled)).toMatchObject({ code: Status.INVALID_ARGUMENT });
    expect((await importError(garbled)).details).toMatch(
      /^archive_chunk: entry a\.json (is not valid DEFLATE data|fails its CRC-32 check)/,
    );
  });

  it("an upload over the bound, stopping to read once past it", async () => {
    let sent = 0;
    const call = registry.client.importPipeline(
      (async function* () {
        yield { content: { $case: "header" as const, value: { pipelineName: "big", serverPath: "", replace: false } } };
        for (let i = 0; i < 64; i++) {
          sent++;
          yield { content: { $case: "archiveChunk" as const, value: Buffer.alloc(MIB) } };
        }
      })(),
    );
    await expect(call).rejects.toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
      details: `archive_chunk: the archive exceeds the registry's upload bound of ${4 * MIB} bytes (registry-max-upload-bytes)`,
    });
    expect(sent).toBeLessThan(64);
  });
});

describe("PublishModel refuses", () => {
  const archive = oneFeatureArchive();
  const location = { ...archive.location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER };
  const publish = (zip: Uint8Array, archiveSizeBytes = zip.byteLength) =>
    registry.client
      .publishModel(
        (async function* () {
          yield {
            content: { $case: "header" as const, value: { location, weightJson: "", archiveSizeBytes, archiveSha256: "" } },
          };
          yield { content: { $case: "archiveChunk" as const, value: Buffer.from(zip) } };
        })(),
      )
      .then(
        () => ({ code: Status.OK, details: "" }),
        (error: { code: Status; details: string }) => ({ code: error.code, details: error.details }),
      );

  it("a symbolic link entry, a zip-slip entry, a bomb and bad zip data, as INVALID_ARGUMENT naming the archive", async () => {
    const link = createZip([{ name: "metadata.json", data: text("/etc/passwd") }]);
    link.writeUInt32LE((0o120777 << 16) >>> 0, (centralRecords(link)[0] as number) + 38);
    expect(await publish(link)).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: 'archive: entry "metadata.json" is a symbolic link; links are not accepted',
    });
    expect(await publish(createZip([{ name: "../metadata.json", data: text("{}") }]))).toMatchObject({
      code: Status.INVALID_ARGUMENT,
    });
    expect((await publish(createZip([{ name: "zeros", data: Buffer.alloc(2 * MIB) }]))).details).toMatch(
      /^archive: entry "zeros" has a compression ratio of \d+; at most 200 is accepted \(zip bomb\)$/,
    );
    expect(await publish(text("PK not really"))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: "archive: not a ZIP archive (no end of central directory record)",
    });
    await expectNothingWritten();
  });

  it("an announced size over the upload bound before reading any chunk", async () => {
    expect(await publish(archive.zip, 5 * MIB)).toEqual({
      code: Status.RESOURCE_EXHAUSTED,
      details: `archive_chunk: the archive exceeds the registry's upload bound of ${4 * MIB} bytes (registry-max-upload-bytes)`,
    });
  });

  it("and still accepts a valid archive", async () => {
    expect(await publish(archive.zip)).toEqual({ code: Status.OK, details: "" });
  });
});
