import { ClientError, Status, createChannel, createClient } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError } from "../../domain/errors.js";
import {
  EstimateRequest,
  type EstimateResponse,
  type EstimateStreamRequest,
  type EstimateStreamResponse,
  EstimatorServiceDefinition,
} from "../../generated/kepler/model/v1/estimator_service.js";
import type { DirectBidiMethod, DirectMethod, DirectUnaryMethod } from "./direct-methods.js";
import { type GrpcServerHandle, startGrpcServer } from "../transport/grpc-server.js";
import { silentLogger } from "../observe/logger.js";
import { withUnimplemented } from "../calls/unimplemented.js";

// Direct methods over real gRPC: answers given at once and answers that wait come back in request order,
// errors map to statuses, malformed bytes are INVALID_ARGUMENT, and closing ends a stream with OK.
const closing = new AbortController();
let server: GrpcServerHandle;

// Energy sources of the requests the server has started on.
const received = new Set<string>();

// The energy source steers the answer: "later:<ms>" waits, "bad" is invalid input, else at once.
function answer(request: EstimateRequest): EstimateResponse | Promise<EstimateResponse> {
  received.add(request.energySource);
  const response = { modelName: `m:${request.energySource}`, componentPowers: [], rowCount: request.rowCount } as never;
  if (request.energySource === "bad") throw new InvalidInputError("energy_source", "bad source");
  const wait = /^later:(\d+)$/.exec(request.energySource)?.[1];
  if (wait === undefined) return response;
  return new Promise((resolve) => setTimeout(() => resolve(response), Number(wait)));
}

beforeAll(async () => {
  const estimate: DirectUnaryMethod<EstimateRequest, EstimateResponse> = { kind: "unary", handle: answer };
  const estimateStream: DirectBidiMethod<EstimateStreamRequest, EstimateStreamResponse> = {
    kind: "bidi",
    handleItem: (item) => {
      const response = answer(item.estimate!);
      const wrap = (value: EstimateResponse): EstimateStreamResponse => ({
        requestId: item.requestId,
        result: { $case: "estimate", value },
      });
      return response instanceof Promise ? response.then(wrap) : wrap(response);
    },
    closing: closing.signal,
  };
  server = await startGrpcServer({
    serviceName: "direct-test",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    shutdownGraceMs: 1000,
    services: [
      {
        definition: EstimatorServiceDefinition,
        implementation: withUnimplemented(EstimatorServiceDefinition),
        direct: { estimate: estimate as DirectMethod, estimateStream: estimateStream as DirectMethod },
      },
    ],
  });
});
afterAll(async () => {
  await server.close();
});

function client() {
  const channel = createChannel(server.address);
  return { channel, estimator: createClient(EstimatorServiceDefinition, channel) };
}

const request = (energySource: string, rowCount = 0) => EstimateRequest.fromPartial({ energySource, rowCount });

describe("direct methods", () => {
  it("answers unary calls given at once or later, and maps a thrown error to its status", async () => {
    const { channel, estimator } = client();
    expect((await estimator.estimate(request("now"))).modelName).toBe("m:now");
    expect((await estimator.estimate(request("later:20"))).modelName).toBe("m:later:20");
    const error = await estimator.estimate(request("bad")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).code).toBe(Status.INVALID_ARGUMENT);
    expect((error as ClientError).details).toBe("energy_source: bad source");
    channel.close();
  });

  it("keeps a stream's answers in request order when some wait and some do not", async () => {
    const { channel, estimator } = client();
    const sources = ["later:30", "now", "later:5", "now", "now", "later:10"];
    const items = async function* () {
      for (const [index, source] of sources.entries()) yield { requestId: String(index), estimate: request(source) };
    };
    const answered: string[] = [];
    for await (const item of estimator.estimateStream(items())) {
      if (item.result?.$case !== "estimate") throw new Error("expected an estimate");
      answered.push(`${item.requestId}:${item.result.value.modelName}`);
    }
    expect(answered).toEqual(sources.map((source, index) => `${index}:m:${source}`));
    channel.close();
  });

  it("fails a stream with the item's status when handleItem throws", async () => {
    const { channel, estimator } = client();
    const items = async function* () {
      yield { requestId: "0", estimate: request("now") };
      yield { requestId: "1", estimate: request("bad") };
    };
    const answered: string[] = [];
    const error = await (async () => {
      for await (const item of estimator.estimateStream(items())) answered.push(item.requestId);
    })().catch((caught: unknown) => caught);
    expect(answered).toEqual(["0"]);
    expect((error as ClientError).code).toBe(Status.INVALID_ARGUMENT);
    channel.close();
  });

  it("ends an open stream with OK after the item in progress when the server closes", async () => {
    const { channel, estimator } = client();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const items = async function* () {
      yield { requestId: "0", estimate: request("later:200") };
      // Closing starts while the server is working on item 0.
      while (!received.has("later:200")) await new Promise((resolve) => setTimeout(resolve, 5));
      closing.abort();
      await held; // the client would send forever
    };
    const answered: string[] = [];
    for await (const item of estimator.estimateStream(items())) answered.push(item.requestId);
    expect(answered).toEqual(["0"]);
    release();
    channel.close();
  });
});
