// `kepler-model models import <url>` against a real registry and a real HTTP server on 127.0.0.1: a zip by
// URL is imported; one announcing more than the registry's largest upload (256 MiB) is refused before its
// body is read, and one growing past the bound is cut off there (the server stops sending), with nothing
// imported.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pour } from "../test/support/pour-bytes.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zipFolderTree } from "../services/models/index.js";
import { runCliCaptured } from "../test/support/run-cli.js";
import { FIXTURE, type SeededRegistry, startSeededRegistry } from "../test/support/seeded-registry.js";
import { MAX_DOWNLOAD_BYTES, readImportSource } from "./import-source.js";

const MIB = 1024 * 1024;
let fixtureZip: Buffer;
let seeded: SeededRegistry;
let base = "";
/** Bytes the server handed to the socket for the growing body, once its response closed. */
let growingSent: Promise<number> | undefined;

const server = createServer((request, response) => {
  if (request.url === "/db/ec2-url.zip") {
    response.writeHead(200, { "content-type": "application/zip" }).end(fixtureZip);
  } else if (request.url === "/db/huge.zip") {
    response.writeHead(200, { "content-length": String(MAX_DOWNLOAD_BYTES + 1) });
    void pour(response, MAX_DOWNLOAD_BYTES + 1);
  } else if (request.url === "/db/growing.zip") {
    response.writeHead(200); // chunked, no announced size
    growingSent = pour(response, 1024 * MIB);
  } else {
    response.writeHead(404).end();
  }
});

beforeAll(async () => {
  fixtureZip = Buffer.from(await zipFolderTree(FIXTURE));
  seeded = await startSeededRegistry();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await seeded.close();
});

const modelsOf = async (pipelineName: string) =>
  (await seeded.registry.client.listModels({ pipelineName })).models.map((m) => m.modelName).sort();

describe("kepler-model models import <url>", () => {
  it("imports a zip by URL under its file name", async () => {
    const run = await runCliCaptured(["models", "import", `${base}/db/ec2-url.zip`, "--registry-address", seeded.handle.address]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(/^imported pipeline ec2-url: 3 models served, 1 skipped\n/);
    expect(await modelsOf("ec2-url")).toEqual([
      "ExponentialRegressionTrainer_0",
      "SGDRegressorTrainer_0",
      "SGDRegressorTrainer_0",
    ]);
  });

  it("refuses a zip announcing more than the registry's largest upload before reading it", async () => {
    expect(MAX_DOWNLOAD_BYTES).toBe(256 * MIB);
    const url = `${base}/db/huge.zip`;
    const run = await runCliCaptured(["models", "import", url, "--registry-address", seeded.handle.address]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `kepler-model models: ${url} announced ${256 * MIB + 1} bytes (Content-Length), more than ${256 * MIB} (the registry's default --registry-max-upload-bytes); not read\n`,
    );
    expect(await modelsOf("huge")).toEqual([]);
  });

  it("answers HTTP errors with the URL and status", async () => {
    const url = `${base}/db/missing.zip`;
    const run = await runCliCaptured(["models", "import", url, "--registry-address", seeded.handle.address]);
    expect([run.code, run.stderr]).toEqual([1, `kepler-model models: could not download ${url}: HTTP 404 Not Found\n`]);
  });
});

describe("readImportSource by URL", () => {
  it("cuts off a body growing past the bound; the server stops sending soon after", async () => {
    const url = `${base}/db/growing.zip`;
    const error = await readImportSource(url, {}, {}, 1 * MIB).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe(
      `${url} sent more than ${MIB} bytes (the registry's default --registry-max-upload-bytes); stopped reading there`,
    );
    // Offered 1 GiB; what left the server is the bound plus what loopback socket buffers took.
    expect(await growingSent).toBeLessThan(17 * MIB);
  });
});
