import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { PORT_ZERO_FLAGS, SIX_SERVICES } from "../support/six-services.js";

const SERVICES = [
  "kepler.model.v1.EstimatorService",
  "kepler.model.v1.ExtractorService",
  "kepler.model.v1.IsolatorService",
  "kepler.model.v1.PipelineService",
  "kepler.model.v1.RegistryService",
  "kepler.model.v1.TrainerService",
];

let mesh: MeshHandle;
beforeAll(async () => {
  mesh = await startMesh({ logger: silentLogger(), flags: { ...PORT_ZERO_FLAGS, "model-path": ".tmp/mesh-test-models" } });
});
afterAll(async () => {
  await mesh.close();
});

describe("the mesh in one process", () => {
  it("starts all six services, each reporting SERVING for itself and overall", async () => {
    expect(mesh.servers.map((server) => server.name).sort()).toEqual(SIX_SERVICES);
    for (const server of mesh.servers) {
      const channel = createChannel(server.address);
      const health = createClient(HealthDefinition, channel);
      const ownService = SERVICES.find((name) => name.toLowerCase().includes(`.${server.name}service`))!;
      expect((await health.check({ service: "" })).status).toBe(1);
      expect((await health.check({ service: ownService })).status).toBe(1);
      channel.close();
    }
  });

  for (const version of ["v1", "v1alpha"]) {
    it(`lists every service plus health over reflection ${version}`, async () => {
      const listed = new Set<string>();
      for (const server of mesh.servers) {
        const reflection = new GrpcReflection(server.address, grpc.credentials.createInsecure(), {}, version);
        for (const name of await reflection.listServices()) listed.add(name);
      }
      for (const name of [...SERVICES, "grpc.health.v1.Health"]) expect(listed).toContain(name);
    });

    it(`describes a request message over reflection ${version}`, async () => {
      const estimator = mesh.servers.find((server) => server.name === "estimator")!;
      const reflection = new GrpcReflection(estimator.address, grpc.credentials.createInsecure(), {}, version);
      const descriptor = await reflection.getDescriptorBySymbol("kepler.model.v1.EstimateRequest");
      const type = descriptor.getProtobufJsRoot().lookupType("kepler.model.v1.EstimateRequest");
      const fields = Object.values(type.fields).map((field) => [field.name, field.id, field.type]);
      // protobufjs reports field names in lowerCamel case.
      expect(fields).toContainEqual(["featureNames", 1, "string"]);
      expect(fields).toContainEqual(["outputType", expect.any(Number), expect.stringContaining("OutputType")]);
      const health = await reflection.getDescriptorBySymbol("grpc.health.v1.Health");
      expect(health.getProtobufJsRoot().lookupService("grpc.health.v1.Health").methods).toHaveProperty("Check");
    });
  }
});
