// The admission gate (admission-gate.ts): a gRPC call past a full pool is refused on its headers alone,
// with the pipeline's own refusal, before its message arrives. Without the gate the refusal waits for the
// message (grpc-js reads it before any handler runs), and this test's call, whose message never comes,
// gets no answer.
import { connect as connectHttp2 } from "node:http2";
import { Status, createChannel, createClient } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { withUnimplemented } from "../calls/unimplemented.js";
import { silentLogger } from "../observe/logger.js";
import { type GrpcServerHandle, startGrpcServer } from "./grpc-server.js";

let release!: () => void;
let released = new Promise<void>((resolve) => (release = resolve));
let running = 0;
const fixture = withUnimplemented(RegistryServiceDefinition, {
  listModels: async () => {
    running++;
    await released;
    return { models: [] };
  },
});

const servers: GrpcServerHandle[] = [];
afterEach(async () => {
  release();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  released = new Promise<void>((resolve) => (release = resolve));
  running = 0;
});

describe("the admission gate", () => {
  it("refuses a call past a full pool on its headers alone, before its message arrives", async () => {
    const server = await startGrpcServer({
      serviceName: "gate",
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger(),
      overload: { maxCalls: 2, maxQueuedCalls: 0, maxCallsPerClient: 0 },
      services: [{ definition: RegistryServiceDefinition, implementation: fixture }],
    });
    servers.push(server);
    const channel = createChannel(server.address);
    const registry = createClient(RegistryServiceDefinition, channel);
    const session = connectHttp2(`http://${server.address}`);
    try {
      const held = [registry.listModels({}), registry.listModels({})];
      for (let i = 0; i < 500 && running < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(running).toBe(2);
      // Headers only: the request stays open and its message never comes.
      const stream = session.request({
        ":method": "POST",
        ":path": "/kepler.model.v1.RegistryService/ListModels",
        "content-type": "application/grpc",
        te: "trailers",
      });
      const answer = await Promise.race([
        new Promise<Record<string, unknown>>((resolve) => stream.on("response", resolve)),
        new Promise<string>((resolve) => setTimeout(() => resolve("no answer within 5 s"), 5000)),
      ]);
      expect(answer).toMatchObject({
        "grpc-status": String(Status.RESOURCE_EXHAUSTED),
        "grpc-message": encodeURI("server busy: 2 calls running and 0 waiting; retry later"),
      });
      stream.close();
      release();
      expect((await Promise.all(held)).map((answer) => answer.models)).toEqual([[], []]);
    } finally {
      session.close();
      channel.close();
    }
  });
});
