// Domain test (issue 34): a checkpoint fetched from --checkpoint-url is read chunk by chunk within the
// upload budget: a file larger than the whole budget is refused (RESOURCE_EXHAUSTED) while it downloads,
// one that fits is returned whole and its bytes given back.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ServerError, Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UploadBudget } from "../kit/calls/upload-budget.js";
import { urlArchiveFetcher } from "./remote-checkpoints.js";

const MIB = 1024 * 1024;
const served = Buffer.alloc(2 * MIB, 7);
const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/zip" });
  response.end(served);
});
let top = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  top = `http://127.0.0.1:${(server.address() as AddressInfo).port}/db`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const location = {
  pipelineName: "p",
  energySource: "rapl-sysfs",
  outputType: "AbsPower" as const,
  featureGroup: "BPFOnly",
  modelName: "LinearRegressionTrainer_0",
};

describe("checkpoint downloads within the upload budget", () => {
  it("a file larger than the whole budget: RESOURCE_EXHAUSTED, nothing held", async () => {
    const budget = new UploadBudget(1 * MIB);
    const error = await urlArchiveFetcher(top, 5000, budget)(location).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(budget.inFlightBytes).toBe(0);
  });

  it("a file that fits: returned whole, its bytes given back", async () => {
    const budget = new UploadBudget(4 * MIB);
    const bytes = await urlArchiveFetcher(top, 5000, budget)(location);
    expect(Buffer.from(bytes!).equals(served)).toBe(true);
    expect(budget.inFlightBytes).toBe(0);
  });
});
