import { setTimeout as sleep } from "node:timers/promises";
import { type CallContext, ClientError, Metadata, Status, createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { HealthCheckResponse_ServingStatus } from "../../../generated/grpc/health/v1/health.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ExtractorServiceDefinition,
  type ExtractRequest,
  type ListValidFeatureGroupsRequest,
  type QueryPrometheusRequest,
} from "../../../generated/kepler/model/v1/extractor_service.js";
import { TrainerServiceDefinition } from "../../../generated/kepler/model/v1/trainer_service.js";
import { PrometheusWindow } from "../../../generated/kepler/model/v1/types.js";
import { createPeerClient } from "../grpc-client.js";
import { type GrpcServerHandle, startGrpcServer } from "../grpc-server.js";
import { silentLogger } from "../../observe/logger.js";
import { PLAINTEXT_PEER } from "../../security/peer-connection.js";
import { withUnimplemented } from "../../calls/unimplemented.js";

// A stand-in extractor whose answers show what the server saw (peer, metadata, sizes), so each call
// shape (unary health, client stream, server stream, bidi) can be compared in-process and over the wire.
const streamed = { yielded: 0, aborted: false };
function extractorImplementation() {
  return withUnimplemented(ExtractorServiceDefinition, {
    async listValidFeatureGroups(requests: AsyncIterable<ListValidFeatureGroupsRequest>, context: CallContext) {
      const sizes: string[] = [];
      for await (const request of requests)
        if (request.content?.$case === "responseChunk") sizes.push(String(request.content.value.byteLength));
      return {
        validFeatureGroups: sizes,
        energySources: [context.peer === "in-process" ? "in-process" : "network", context.metadata.get("authorization") ?? ""],
        metrics: [],
        validHistoricalFeatureGroups: [],
      };
    },
    async *queryPrometheus(request: QueryPrometheusRequest, context: CallContext) {
      streamed.yielded = 0;
      streamed.aborted = false;
      context.signal.addEventListener("abort", () => (streamed.aborted = true));
      const count = request.window?.endTimeSeconds ?? 0;
      for (let index = 0; index < count; index++) {
        streamed.yielded++;
        yield { content: { $case: "responseChunk" as const, value: Buffer.from(`chunk ${index}`) } };
      }
      if (request.window?.baseUrl === "hang") await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
    },
    async *extract(requests: AsyncIterable<ExtractRequest>) {
      for await (const request of requests) {
        if (request.content?.$case === "responseChunk")
          yield { content: { $case: "summary" as const, value: { notices: [request.content.value.toString()] } } };
      }
    },
  });
}

let server: GrpcServerHandle;
beforeAll(async () => {
  server = await startGrpcServer({
    serviceName: "in-process-test",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    limits: { maxReceiveBytes: 64 * 1024, maxSendBytes: 64 * 1024 },
    shutdownGraceMs: 200,
    services: [{ definition: ExtractorServiceDefinition, implementation: extractorImplementation() }],
  });
});
afterAll(() => server.close());

// A peer client (in-process when the server is here) and a plain nice-grpc client (always the wire).
function clients() {
  const peer = createPeerClient(ExtractorServiceDefinition, server.address, { ...PLAINTEXT_PEER, token: () => "secret" });
  const channel = createChannel(server.address);
  const wire = createClient(ExtractorServiceDefinition, channel, {
    "*": { metadata: Metadata({ authorization: "Bearer secret" }) },
  });
  return { peer: peer.client, wire, close: () => (peer.close(), channel.close()) };
}

// The stand-in streams `count` chunks (end_time_seconds), then waits for cancellation when base_url is "hang".
function window(count: number, baseUrl = ""): QueryPrometheusRequest {
  return { window: PrometheusWindow.fromPartial({ baseUrl, startTimeSeconds: 0, endTimeSeconds: count, stepSeconds: 1 }) };
}

async function* chunks(...texts: string[]) {
  for (const text of texts) yield { content: { $case: "responseChunk" as const, value: Buffer.from(text) } };
}

describe("calls to a server of the same process", () => {
  it("go in-process for a peer client and give the same answers as over the network", async () => {
    const { peer, wire, close } = clients();
    try {
      const listedHere = await peer.listValidFeatureGroups(chunks("ab", "cde"));
      const listedThere = await wire.listValidFeatureGroups(chunks("ab", "cde"));
      expect(listedHere.energySources).toEqual(["in-process", "Bearer secret"]);
      expect(listedThere.energySources).toEqual(["network", "Bearer secret"]);
      expect(listedHere.validFeatureGroups).toEqual(["2", "3"]);
      expect(listedThere.validFeatureGroups).toEqual(listedHere.validFeatureGroups);

      const query = window(5);
      const streamedHere: string[] = [];
      for await (const response of peer.queryPrometheus(query))
        if (response.content?.$case === "responseChunk") streamedHere.push(response.content.value.toString());
      const streamedThere: string[] = [];
      for await (const response of wire.queryPrometheus(query))
        if (response.content?.$case === "responseChunk") streamedThere.push(response.content.value.toString());
      expect(streamedHere).toEqual(["chunk 0", "chunk 1", "chunk 2", "chunk 3", "chunk 4"]);
      expect(streamedThere).toEqual(streamedHere);

      const echoed: string[] = [];
      for await (const response of peer.extract(chunks("x", "y", "z")))
        if (response.content?.$case === "summary") echoed.push(...response.content.value.notices);
      expect(echoed).toEqual(["x", "y", "z"]);

      const health = createPeerClient(HealthDefinition, server.address);
      try {
        const status = await health.client.check({ service: ExtractorServiceDefinition.fullName });
        expect(status.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
      } finally {
        health.close();
      }
    } finally {
      close();
    }
  });

  it("refuse a message over the server's limit, and an unknown method, with the network's status codes", async () => {
    const { peer, wire, close } = clients();
    const big = "x".repeat(100 * 1024);
    try {
      for (const client of [peer, wire]) {
        const error = await client.listValidFeatureGroups(chunks(big)).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ClientError);
        expect((error as ClientError).code).toBe(Status.RESOURCE_EXHAUSTED);
      }
      const trainer = createPeerClient(TrainerServiceDefinition, server.address);
      try {
        const error = await trainer.client.listTrainers({}).catch((caught: unknown) => caught);
        expect((error as ClientError).code).toBe(Status.UNIMPLEMENTED);
      } finally {
        trainer.close();
      }
    } finally {
      close();
    }
  });

  it("end at the deadline, and the server sees its call cancelled", async () => {
    const { peer, close } = clients();
    try {
      const query = window(1, "hang");
      const error = await (async () => {
        for await (const response of peer.queryPrometheus(query, { deadlineMs: 150 })) void response;
      })().catch((caught: unknown) => caught);
      expect((error as ClientError).code).toBe(Status.DEADLINE_EXCEEDED);
      await sleep(20);
      expect(streamed.aborted).toBe(true);
    } finally {
      close();
    }
  });

  it("let a server stream run ahead of a slow reader by a bounded number of messages only", async () => {
    const { peer, close } = clients();
    try {
      const query = window(1000);
      let read = 0;
      for await (const response of peer.queryPrometheus(query)) {
        void response;
        if (++read === 1) {
          await sleep(100);
          // nice-grpc writes with backpressure: a message is taken only when this side reads.
          expect(streamed.yielded).toBeLessThan(50);
        }
      }
      expect(read).toBe(1000);
      expect(streamed.yielded).toBe(1000);
    } finally {
      close();
    }
  });
});

describe("closing a server with in-process calls", () => {
  it("ends a running call after the grace period, then sends new calls over the network", async () => {
    const closing = await startGrpcServer({
      serviceName: "in-process-close",
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger(),
      shutdownGraceMs: 100,
      services: [{ definition: ExtractorServiceDefinition, implementation: extractorImplementation() }],
    });
    const peer = createPeerClient(ExtractorServiceDefinition, closing.address);
    try {
      const query = window(1, "hang");
      const running = (async () => {
        for await (const response of peer.client.queryPrometheus(query)) void response;
      })().catch((caught: unknown) => caught);
      await sleep(50);
      const started = Date.now();
      await closing.close();
      expect(Date.now() - started).toBeGreaterThanOrEqual(90);
      expect(((await running) as ClientError).code).toBe(Status.UNAVAILABLE);
      const after = await peer.client.listValidFeatureGroups(chunks("a")).catch((caught: unknown) => caught);
      expect((after as ClientError).code).toBe(Status.UNAVAILABLE);
    } finally {
      peer.close();
    }
  });
});
