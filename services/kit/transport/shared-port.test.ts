// Server tests: the kit serving HTTP/1.1 beside gRPC on one port, and its graceful close of both
// (in-flight requests finish, then everything left is destroyed at the grace deadline).
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect } from "node:net";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { describe, expect, it } from "vitest";
import { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { startGrpcServer } from "./grpc-server.js";
import { silentLogger } from "../observe/logger.js";
import { withUnimplemented } from "../calls/unimplemented.js";

// A server whose HTTP handler answers after `delayMs` (never when undefined).
function startServer(delayMs: number | undefined, shutdownGraceMs: number) {
  return startGrpcServer({
    serviceName: "shared-port-test",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    shutdownGraceMs,
    services: [{ definition: RegistryServiceDefinition, implementation: withUnimplemented(RegistryServiceDefinition) }],
    http: {
      headersTimeoutMs: 2000,
      routes: ["/slow", "/never"].map((path) => ({
        method: "GET" as const,
        path,
        handle: (_request: IncomingMessage, response: ServerResponse) => {
          if (delayMs !== undefined) setTimeout(() => response.end("late answer"), delayMs);
        },
      })),
    },
  });
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

describe("HTTP and gRPC on one port: graceful close", () => {
  it("lets an in-flight HTTP request finish, closes gRPC too, then refuses connections", async () => {
    const server = await startServer(300, 5000);
    const channel = createChannel(server.address);
    expect((await createClient(HealthDefinition, channel).check({ service: "" })).status).toBe(1);
    const inFlight = fetch(`http://${server.address}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
    const response = await inFlight;
    expect([response.status, await response.text()]).toEqual([200, "late answer"]);
    expect(await refusesConnections(server.port)).toBe(true);
    channel.close();
  });

  it("destroys a request that outlives the grace period", async () => {
    const server = await startServer(undefined, 300);
    const inFlight = fetch(`http://${server.address}/never`).then(
      () => "answered",
      () => "connection closed",
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
    expect(await inFlight).toBe("connection closed");
    expect(await refusesConnections(server.port)).toBe(true);
  });
});
