import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { addressAnswers, nothingAnswersMessage, serverAddress, serverAddressFlag, serviceOfPath } from "./server-address.js";

describe("server address", () => {
  it("reads --<service>-address, then its variable, then the default port", () => {
    expect(serverAddress("registry", { flags: { "registry-address": "10.0.0.1:9" }, env: {} })).toBe("10.0.0.1:9");
    expect(serverAddress("registry", { flags: {}, env: { KEPLER_MODEL_REGISTRY_ADDRESS: "h:1" } })).toBe("h:1");
    expect(serverAddress("estimator", { flags: {}, env: {} })).toBe("127.0.0.1:8101");
    expect(serverAddressFlag("pipeline").description).toBe(
      "The pipeline to call (env KEPLER_MODEL_PIPELINE_ADDRESS, default 127.0.0.1:8102).",
    );
  });

  it("says how to start a server that is not there, per address flag", () => {
    expect(nothingAnswersMessage("isolator", "127.0.0.1:8104")).toBe(
      "nothing answers at 127.0.0.1:8104: start it with `npm start` or set --isolator-address",
    );
  });

  it("finds the service of a method path", () => {
    expect(serviceOfPath("/kepler.model.v1.RegistryService/ListModels")).toBe("registry");
    expect(serviceOfPath("/kepler.model.v1.EstimatorService/Estimate")).toBe("estimator");
    expect(serviceOfPath("/grpc.health.v1.Health/Check")).toBeUndefined();
  });

  it("answers true for a listening port and false once it is closed", async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = `127.0.0.1:${(server.address() as { port: number }).port}`;
    expect(await addressAnswers(address)).toBe(true);
    expect(await addressAnswers(`dns:${address}`)).toBe(true);
    await new Promise((resolve) => server.close(resolve));
    expect(await addressAnswers(address)).toBe(false);
    expect(await addressAnswers("127.0.0.1:0")).toBe(false);
  });
});
