// Tests of reading a URL's answer with a size bound, against a real HTTP server on 127.0.0.1 that counts
// the bytes it manages to send: an announced Content-Length over the bound is refused before the body is
// read, a chunked body growing past it is cut off there (the server stops sending soon after), a body just
// under it is read whole; the upload budget holds what was read or announced.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pour } from "../../test/support/pour-bytes.js";
import { ServerError, Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_TABLE, errorKindOf } from "../kit/calls/error-table.js";
import { UploadBudget } from "../kit/calls/upload-budget.js";
import { readCappedBody, readCappedJson, ResponseTooLargeError } from "./capped-response-body.js";

const MIB = 1024 * 1024;
const LIMIT_BYTES = 1 * MIB;
const limit = { limitBytes: LIMIT_BYTES, limitName: "--test-max-bytes" };
// What the server offers in the oversized cases: far more than the bound, so a reader that kept going
// would be seen.
const OFFERED_BYTES = 1024 * MIB;

/** Bytes the server handed to the socket per path, final once the response closed. */
const sent = new Map<string, Promise<number>>();

const server = createServer((request, response) => {
  const path = request.url ?? "";
  if (path === "/announced") {
    response.writeHead(200, { "content-length": String(OFFERED_BYTES) });
    sent.set(path, pour(response, OFFERED_BYTES));
  } else if (path === "/growing") {
    response.writeHead(200); // no Content-Length: chunked
    sent.set(path, pour(response, OFFERED_BYTES));
  } else if (path === "/under") {
    response.writeHead(200);
    sent.set(path, pour(response, LIMIT_BYTES - 1));
  } else if (path === "/json") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"status":"success"}');
  } else {
    response.writeHead(404).end();
  }
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("readCappedBody", () => {
  it("refuses a Content-Length over the bound before reading the body, naming the URL and the bound", async () => {
    const url = `${base}/announced`;
    const error = await failureOf(readCappedBody(await fetch(url), url, limit));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toBe(
      `${url} announced ${OFFERED_BYTES} bytes (Content-Length), more than ${LIMIT_BYTES} (--test-max-bytes); not read`,
    );
    // The connection was dropped: the server stopped far short of what it offered (socket buffers only).
    expect(await sent.get("/announced")).toBeLessThan(LIMIT_BYTES + 16 * MIB);
  });

  it("cuts off a chunked body once it passes the bound; the server stops sending soon after", async () => {
    const url = `${base}/growing`;
    const error = await failureOf(readCappedBody(await fetch(url), url, limit));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect((error as Error).message).toBe(`${url} sent more than ${LIMIT_BYTES} bytes (--test-max-bytes); stopped reading there`);
    expect(await sent.get("/growing")).toBeLessThan(LIMIT_BYTES + 16 * MIB);
  });

  it("reads a body just under the bound whole", async () => {
    const url = `${base}/under`;
    const body = await readCappedBody(await fetch(url), url, limit);
    expect(body.byteLength).toBe(LIMIT_BYTES - 1);
    expect(body.equals(Buffer.alloc(LIMIT_BYTES - 1, 0x61))).toBe(true); // pour() writes 0x61 bytes
    expect(await sent.get("/under")).toBe(LIMIT_BYTES - 1);
  });

  it("is answered as RESOURCE_EXHAUSTED (HTTP 413) with its message", () => {
    const kind = errorKindOf(new ResponseTooLargeError("http://x/y", 10, "--test-max-bytes"));
    expect(kind).toBe("too-large");
    expect(ERROR_TABLE[kind]).toMatchObject({ grpc: Status.RESOURCE_EXHAUSTED, http: 413, expected: true });
  });

  it("parses a JSON answer", async () => {
    const url = `${base}/json`;
    expect(await readCappedJson(await fetch(url), url, limit)).toEqual({ status: "success" });
  });
});

describe("readCappedBody within the upload budget", () => {
  it("reserves the bytes read; the caller releases them", async () => {
    const budget = new UploadBudget(4 * MIB);
    const reservation = budget.reserve("this download");
    const url = `${base}/under`;
    await readCappedBody(await fetch(url), url, { ...limit, reservation });
    expect(budget.inFlightBytes).toBe(LIMIT_BYTES - 1);
    reservation.release();
    expect(budget.inFlightBytes).toBe(0);
  });

  it("refuses an announced size larger than the whole budget before reading (RESOURCE_EXHAUSTED)", async () => {
    const budget = new UploadBudget(4 * MIB);
    const url = `${base}/announced`;
    const error = await failureOf(
      readCappedBody(await fetch(url), url, {
        limitBytes: OFFERED_BYTES,
        limitName: "x",
        reservation: budget.reserve("this download"),
      }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(budget.inFlightBytes).toBe(0);
  });
});
