// Server tests: admission control on every door, flooded past its limits. The handlers of a fixture
// service hold their calls until the test opens a gate, so the number running at once is known: each
// door must admit exactly its limit (plus the queue), refuse every other call at once with
// RESOURCE_EXHAUSTED / HTTP 429 / the socket's error reply, keep answering health and Estimate-class
// calls, and answer the admitted ones once the gate opens. (Latency and memory under a flood: `npm run
// bench -- overload`.)
import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status, createChannel, createClientFactory } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { RetryInfo, errorDetailsClientMiddleware } from "nice-grpc-error-details";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startEstimatorSocket } from "../../services/estimator/estimator-socket.js";
import { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import { createAdmissionPolicy } from "../../services/kit/calls/admission.js";
import { withUnimplemented } from "../../services/kit/calls/unimplemented.js";
import { DEFAULT_OVERLOAD, type OverloadConfig } from "../../services/kit/config/overload-config.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type GrpcServerHandle, startGrpcServer } from "../../services/kit/transport/grpc-server.js";
import { sendHttp } from "../../services/kit/transport/http-response.js";
import { KEPLER_0712_METRICS, keplerPowerRequest, keplerSidecarCall } from "../support/kepler-sidecar-client.js";

/** A gate every held call waits on; `open` lets them all finish. */
function createGate() {
  let open!: () => void;
  let opened = new Promise<void>((resolve) => (open = resolve));
  let entered = 0;
  return {
    get entered() {
      return entered;
    },
    async pass(): Promise<void> {
      entered++;
      await opened;
    },
    open: () => open(),
    reset() {
      entered = 0;
      opened = new Promise<void>((resolve) => (open = resolve));
    },
  };
}

const gate = createGate();
const fixture = withUnimplemented(RegistryServiceDefinition, {
  listModels: async () => {
    await gate.pass();
    return { models: [] };
  },
  // A stream held open until the gate opens, then ended without events.
  // eslint-disable-next-line require-yield -- it sends nothing; holding the stream open is the point.
  async *watchModels() {
    await gate.pass();
  },
});

const LIMITS: Partial<OverloadConfig> = {
  maxCalls: 4,
  maxQueuedCalls: 2,
  maxCallsPerClient: 0,
  maxStreams: 3,
  maxStreamsPerClient: 0,
  maxPriorityCalls: 4,
  queueWaitMs: 10_000,
};

const servers: GrpcServerHandle[] = [];
afterEach(async () => {
  gate.open();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  gate.reset();
});

async function startFixture(overload: Partial<OverloadConfig>): Promise<GrpcServerHandle> {
  const server = await startGrpcServer({
    serviceName: "fixture",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    overload,
    services: [{ definition: RegistryServiceDefinition, implementation: fixture }],
    http: {
      routes: [
        {
          method: "GET",
          path: "/slow",
          handle: async (_request, response) => {
            await gate.pass();
            sendHttp(response, 200, "done");
          },
        },
      ],
    },
  });
  servers.push(server);
  return server;
}

function clients(address: string) {
  const channel = createChannel(address);
  const factory = createClientFactory().use(errorDetailsClientMiddleware);
  return {
    registry: factory.create(RegistryServiceDefinition, channel),
    health: factory.create(HealthDefinition, channel),
    close: () => channel.close(),
  };
}

/** The call's outcome: "ok" or its status name. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (error) {
    if (error instanceof ClientError) return Status[error.code];
    throw error;
  }
}

const count = (outcomes: string[]) =>
  Object.fromEntries([...new Set(outcomes)].sort().map((o) => [o, outcomes.filter((x) => x === o).length]));

/** Waits until `predicate` holds (polling the event loop), at most 5 s. */
async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(predicate()).toBe(true);
}

describe("admission: gRPC unary", () => {
  it("admits max-calls plus the queue, refuses the rest with RESOURCE_EXHAUSTED and a retry hint, health still answers", async () => {
    const server = await startFixture(LIMITS);
    const { registry, health, close } = clients(server.address);
    try {
      const calls = Array.from({ length: 20 }, () => outcome(registry.listModels({})));
      await until(() => gate.entered === 4);
      const refusal = await registry.listModels({}).catch((error: unknown) => error as ClientError);
      expect(refusal).toBeInstanceOf(ClientError);
      expect((refusal as ClientError).code).toBe(Status.RESOURCE_EXHAUSTED);
      expect((refusal as ClientError).details).toBe("server busy: 4 calls running and 2 waiting; retry later");
      expect(await health.check({ service: "kepler.model.v1.RegistryService" })).toEqual({ status: 1 });
      gate.open();
      expect(count(await Promise.all(calls))).toEqual({ RESOURCE_EXHAUSTED: 14, ok: 6 });
      expect(gate.entered).toBe(6);
    } finally {
      close();
    }
  });

  it("sends the retry hint as google.rpc.RetryInfo", async () => {
    const server = await startFixture({ ...LIMITS, maxQueuedCalls: 0 });
    const { registry, close } = clients(server.address);
    try {
      const held = Array.from({ length: 4 }, () => outcome(registry.listModels({})));
      await until(() => gate.entered === 4);
      const refusal = (await registry.listModels({}).catch((error: unknown) => error)) as ClientError & {
        extra?: unknown[];
      };
      const { RichClientError } = await import("nice-grpc-error-details");
      expect(refusal).toBeInstanceOf(RichClientError);
      const details = (refusal as InstanceType<typeof RichClientError>).extra;
      expect(details).toEqual([RetryInfo.fromPartial({ retryDelay: { seconds: 1, nanos: 0 } })]);
      gate.open();
      expect(count(await Promise.all(held))).toEqual({ ok: 4 });
    } finally {
      close();
    }
  });

  it("a queued call past queue-wait-ms is refused; a client over its own limit is refused while others are admitted", async () => {
    const server = await startFixture({ ...LIMITS, queueWaitMs: 100, maxCallsPerClient: 3 });
    const { registry, close } = clients(server.address);
    try {
      const calls = Array.from({ length: 5 }, () => outcome(registry.listModels({})));
      await until(() => gate.entered === 3);
      // All from 127.0.0.1: 3 admitted, the 2 others refused by the per-client limit (nothing queues:
      // slots are free, the client is not).
      expect(count(await Promise.all(calls.slice(3)))).toEqual({ RESOURCE_EXHAUSTED: 2 });
      gate.open();
      expect(count(await Promise.all(calls.slice(0, 3)))).toEqual({ ok: 3 });
    } finally {
      close();
    }
    const queued = await startFixture({ ...LIMITS, queueWaitMs: 100 });
    const second = clients(queued.address);
    try {
      gate.reset();
      const calls = Array.from({ length: 6 }, () => outcome(second.registry.listModels({})));
      await until(() => gate.entered === 4);
      const expired = await second.registry.listModels({}).catch((error: unknown) => error as ClientError);
      expect((expired as ClientError).code).toBe(Status.RESOURCE_EXHAUSTED);
      // The queue was full (2 waiting): refused at once; the 2 waiting expire after 100 ms.
      expect(count(await Promise.all(calls.slice(4)))).toEqual({ RESOURCE_EXHAUSTED: 2 });
      gate.open();
      expect(count(await Promise.all(calls.slice(0, 4)))).toEqual({ ok: 4 });
    } finally {
      second.close();
    }
  });
});

describe("admission: gRPC streams", () => {
  it("holds max-streams open, refuses the rest with RESOURCE_EXHAUSTED, unary calls and health still answer", async () => {
    const server = await startFixture(LIMITS);
    const { registry, health, close } = clients(server.address);
    try {
      const drain = async () => {
        for await (const _ of registry.watchModels({}));
      };
      const streams = Array.from({ length: 10 }, () => outcome(drain()));
      await until(() => gate.entered === 3);
      expect(count(await Promise.all(streams.slice(3)))).toEqual({ RESOURCE_EXHAUSTED: 7 });
      expect(await health.check({ service: "" })).toEqual({ status: 1 });
      const unary = outcome(registry.listModels({}));
      await until(() => gate.entered === 4);
      gate.open();
      expect(count(await Promise.all(streams.slice(0, 3)))).toEqual({ ok: 3 });
      expect(await unary).toBe("ok");
    } finally {
      close();
    }
  });
});

function httpGet(port: number, path: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers["retry-after"],
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    request.on("error", reject);
    request.end();
  });
}

describe("admission: HTTP routes", () => {
  it("admits max-calls plus the queue, answers the rest 429 with Retry-After", async () => {
    const server = await startFixture(LIMITS);
    const answers = Array.from({ length: 20 }, () => httpGet(server.port, "/slow"));
    await until(() => gate.entered === 4);
    const refused = await httpGet(server.port, "/slow");
    expect(refused).toEqual({
      status: 429,
      retryAfter: "1",
      body: "server busy: 4 calls running and 2 waiting; retry later",
    });
    gate.open();
    const statuses = (await Promise.all(answers)).map((answer) => String(answer.status));
    expect(count(statuses)).toEqual({ 200: 6, 429: 14 });
  });
});

describe("admission: the Kepler socket", () => {
  const folder = mkdtempSync(join(tmpdir(), "admission-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const request = keplerPowerRequest({
    metrics: [...KEPLER_0712_METRICS],
    values: [[1, 2, 3, 4, 5, 6, 7, 8]],
    outputType: "AbsPower",
    source: "rapl-sysfs",
  });

  it("answers max-priority-calls requests at once and gives every other one the busy error reply", async () => {
    const admission = createAdmissionPolicy({ ...DEFAULT_OVERLOAD, ...LIMITS });
    const socket = await startEstimatorSocket({
      path: join(folder, "flood.sock"),
      logger: silentLogger(),
      admission,
      estimate: async () => {
        await gate.pass();
        return { componentPowers: [{ component: "platform", powerWatts: new Float64Array([12.5]) }], rowCount: 1, coreRatio: 1 };
      },
    });
    try {
      const replies = Array.from({ length: 10 }, () => keplerSidecarCall(socket.path, request));
      await until(() => gate.entered === 4);
      const busy = await keplerSidecarCall(socket.path, request);
      expect(busy.allBytes).toBe('{"powers": {}, "msg": "server busy: 4 estimates running; retry later"}');
      gate.open();
      const texts = (await Promise.all(replies)).map((reply) => (JSON.parse(reply.allBytes) as { msg: string }).msg);
      expect(count(texts)).toEqual({ "": 4, "server busy: 4 estimates running; retry later": 6 });
      expect(admission.load).toEqual({ priority: 0, streams: 0, calls: 0, queued: 0 });
    } finally {
      await socket.close();
    }
  });
});
