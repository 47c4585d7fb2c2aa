// Server test: HTTP requests that fill the call slots and the queue with bodies that never end, whose clients
// then go away (also while they still wait in the queue), give every slot back: the next call is admitted.
// Found by the overload bench: a request abandoned in the queue was admitted later and read a body that had
// already been torn down, holding its slot for good.
import { type ClientRequest, request as httpRequest } from "node:http";
import { createChannel, createClient } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import { withUnimplemented } from "../../services/kit/calls/unimplemented.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type GrpcServerHandle, startGrpcServer } from "../../services/kit/transport/grpc-server.js";
import { readRequestBody } from "../../services/kit/transport/http-request-body.js";
import { sendHttp } from "../../services/kit/transport/http-response.js";

const servers: GrpcServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

let bodiesRead = 0;
let bodiesCancelled = 0;

async function startServer(): Promise<GrpcServerHandle> {
  const server = await startGrpcServer({
    serviceName: "fixture",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    overload: { maxCalls: 4, maxQueuedCalls: 4, maxCallsPerClient: 0, queueWaitMs: 60_000 },
    services: [
      {
        definition: RegistryServiceDefinition,
        implementation: withUnimplemented(RegistryServiceDefinition, { listModels: async () => ({ models: [] }) }),
      },
    ],
    http: {
      routes: [
        {
          method: "POST",
          path: "/upload",
          handle: async (request, response) => {
            try {
              await readRequestBody(request, 1 << 20);
              bodiesRead++;
            } catch (error) {
              bodiesCancelled++;
              throw error;
            }
            sendHttp(response, 200, "stored");
          },
        },
      ],
    },
  });
  servers.push(server);
  return server;
}

/** A POST whose body starts and never ends. */
function unfinishedUpload(address: string): ClientRequest {
  const [host, port] = address.split(":") as [string, string];
  const request = httpRequest({
    host,
    port: Number(port),
    method: "POST",
    path: "/upload",
    headers: { "content-length": "1000" },
  });
  request.on("error", () => undefined); // destroyed on purpose
  request.write("x".repeat(10));
  return request;
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(predicate()).toBe(true);
}

describe("admission: abandoned HTTP bodies", () => {
  it("4 running and 4 queued uploads whose clients go away free every slot; ListModels is then admitted", async () => {
    bodiesRead = 0;
    bodiesCancelled = 0;
    const server = await startServer();
    const uploads = Array.from({ length: 8 }, () => unfinishedUpload(server.address));
    // 4 handlers reading, 4 waiting in the queue (the test cannot see the queue; give the requests time to arrive).
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const upload of uploads) upload.destroy();
    // The 4 running reads end cancelled; the 4 queued ones are admitted after them and end cancelled too.
    await until(() => bodiesCancelled === 8);
    expect(bodiesRead).toBe(0);
    const channel = createChannel(server.address);
    try {
      const registry = createClient(RegistryServiceDefinition, channel);
      const answered = await registry.listModels({}, { signal: AbortSignal.timeout(3000) });
      expect(answered.models).toEqual([]);
    } finally {
      channel.close();
    }
  });
});
