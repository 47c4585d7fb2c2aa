import { describe, expect, it } from "vitest";
import { readConfig } from "./config-schema.js";
import { hostKey, peerAddressKey, portKey } from "./service-addresses.js";

const schema = { host: hostKey, port: portKey("estimator"), registryAddress: peerAddressKey("registry") };

describe("readConfig", () => {
  it("uses the design's defaults", () => {
    expect(readConfig(schema)).toEqual({ host: "127.0.0.1", port: 8101, registryAddress: "127.0.0.1:8100" });
  });

  it("lets a flag beat the environment, and the environment beat the default", () => {
    const env = { KEPLER_MODEL_ESTIMATOR_PORT: "9001", KEPLER_MODEL_REGISTRY_ADDRESS: "registry:8100" };
    expect(readConfig(schema, env, { "estimator-port": "9002" })).toEqual({
      host: "127.0.0.1",
      port: 9002,
      registryAddress: "registry:8100",
    });
  });

  it("names the key and the reason for a bad value", () => {
    expect(() => readConfig(schema, { KEPLER_MODEL_ESTIMATOR_PORT: "eighty" })).toThrow(
      'KEPLER_MODEL_ESTIMATOR_PORT: expected an integer, got "eighty"',
    );
    expect(() => readConfig(schema, {}, { "estimator-port": "70000" })).toThrow(
      "--estimator-port: expected a port 0-65535, got 70000",
    );
  });
});
