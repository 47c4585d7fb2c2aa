// TLS and mTLS on real servers over 127.0.0.1 with certificates made by the openssl CLI in a temp dir:
// a plaintext client is refused, a client trusting the CA works, with mTLS a client without a certificate
// is refused; a rotated certificate is served without a restart; a whole mesh with mTLS and tokens trains
// and serves through its TLS peer channels.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { type ServerHandle, startGrpcServer } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { clientConnection } from "../../services/kit/security/peer-connection.js";
import { INSECURE, type SecurityConfig } from "../../services/kit/security/security-config.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { EXAMPLE_ESTIMATE_REQUEST } from "../../services/mesh/estimate-example.js";
import { startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { runCliCaptured } from "../support/run-cli.js";
import { createCa, issueCertificate, OPENSSL } from "./test-certificates.js";
import { needs } from "../support/system-tools.js";
import { healthWith } from "../support/health-with.js";

const folder = mkdtempSync(join(tmpdir(), "tls-e2e-"));
const ca = createCa(folder, "ca");
const otherCa = createCa(folder, "other-ca");
const server = issueCertificate(folder, ca, "server");
const client = issueCertificate(folder, ca, "client");
const strangerClient = issueCertificate(folder, otherCa, "stranger");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function startHealthServer(security: Partial<SecurityConfig>, tlsReloadMs?: number): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "tls-test",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    services: [],
    security: { ...INSECURE, ...security },
    tlsReloadMs,
  });
}

describe("TLS", needs(OPENSSL), () => {
  it("refuses plaintext clients and serves clients that trust the CA", async () => {
    const handle = await startHealthServer({ tlsCert: server.cert, tlsKey: server.key });
    try {
      expect(await healthWith(handle.address, {})).toBe("UNAVAILABLE");
      expect(await healthWith(handle.address, { tlsCa: ca.cert })).toBe("SERVING");
      expect(await healthWith(handle.address, { tlsCa: otherCa.cert })).toBe("UNAVAILABLE");
      expect(await healthWith(handle.address, { tlsCa: ca.cert, tlsServerName: "elsewhere.example" })).toBe("UNAVAILABLE");
      expect(await healthWith(handle.address, { tlsCa: ca.cert, tlsServerName: "localhost" })).toBe("SERVING");
    } finally {
      await handle.close();
    }
  });

  it("with mTLS, refuses clients without a certificate or with one from another CA", async () => {
    const handle = await startHealthServer({ tlsCert: server.cert, tlsKey: server.key, tlsClientCa: ca.cert });
    try {
      expect(await healthWith(handle.address, { tlsCa: ca.cert })).toBe("UNAVAILABLE");
      expect(await healthWith(handle.address, { tlsCa: ca.cert, tlsCert: strangerClient.cert, tlsKey: strangerClient.key })).toBe(
        "UNAVAILABLE",
      );
      expect(await healthWith(handle.address, { tlsCa: ca.cert, tlsCert: client.cert, tlsKey: client.key })).toBe("SERVING");
    } finally {
      await handle.close();
    }
  });

  it("serves a rotated certificate without a restart", async () => {
    const live = { cert: join(folder, "live.pem"), key: join(folder, "live.key") };
    copyFileSync(server.cert, live.cert);
    copyFileSync(server.key, live.key);
    const handle = await startHealthServer({ tlsCert: live.cert, tlsKey: live.key }, 100);
    try {
      expect(await healthWith(handle.address, { tlsCa: ca.cert })).toBe("SERVING");
      const rotated = issueCertificate(folder, otherCa, "rotated");
      copyFileSync(rotated.key, live.key);
      copyFileSync(rotated.cert, live.cert);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await healthWith(handle.address, { tlsCa: otherCa.cert })).toBe("SERVING");
      expect(await healthWith(handle.address, { tlsCa: ca.cert })).toBe("UNAVAILABLE");
    } finally {
      await handle.close();
    }
  });

  it("fails start-up naming the flag when a file is missing or the key does not match", async () => {
    await expect(startHealthServer({ tlsCert: join(folder, "nope.pem"), tlsKey: server.key })).rejects.toThrow("--tls-cert");
    await expect(startHealthServer({ tlsCert: server.cert, tlsKey: client.key })).rejects.toThrow("--tls-cert");
    await expect(startHealthServer({ tlsCert: server.cert })).rejects.toThrow("--tls-key");
    await expect(startHealthServer({ tlsClientCa: ca.cert })).rejects.toThrow("--tls-client-ca");
  });
});

describe("a mesh with mTLS and tokens", needs(OPENSSL), () => {
  it("trains the default models through TLS peer channels and answers Estimate and the CLI over TLS", async () => {
    const tokens = join(folder, "tokens");
    writeFileSync(tokens, "ci:0123456789abcdef0123456789abcdef\n");
    const tls = { "tls-cert": server.cert, "tls-key": server.key, "tls-ca": ca.cert, "tls-client-ca": ca.cert };
    const mesh = await startMeshWithDefaultModels({
      logger: silentLogger(),
      flags: {
        ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"])),
        "model-path": join(folder, "models"),
        "registry-rescan-ms": "0",
        "auth-tokens-file": tokens,
        ...tls,
      },
      defaultModels: true,
    });
    try {
      expect(mesh.defaultModels?.status).toBe("trained");
      const address = mesh.servers.find((handle) => handle.name === "estimator")!.address;
      const estimator = createEstimatorClient(
        address,
        clientConnection({ ...INSECURE, tlsCa: ca.cert, tlsCert: client.cert, tlsKey: client.key }),
      );
      const response = await estimator.client.estimate(EstimateRequest.fromJSON(EXAMPLE_ESTIMATE_REQUEST));
      estimator.close();
      expect(response.componentPowers.length).toBeGreaterThan(0);

      const registry = mesh.servers.find((handle) => handle.name === "registry")!.address;
      const list = ["models", "list", "--registry-address", registry, "--tls-ca", ca.cert];
      const withoutCert = await runCliCaptured(list);
      expect(withoutCert.code).not.toBe(0);
      const listed = await runCliCaptured([...list, "--tls-cert", client.cert, "--tls-key", client.key]);
      expect(listed.stderr).toBe("");
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain("default");
    } finally {
      await mesh.close();
    }
  });
});
