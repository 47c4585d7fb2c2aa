// The launcher path `kepler-model serve` and `npm start` take: --estimator-socket opens Kepler's sidecar
// socket next to the estimator's gRPC port, and the estimator's config rejects a path too long to bind.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEstimatorConfig } from "../../services/estimator/config.js";
import { keplerSidecarCall } from "../support/kepler-sidecar-client.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { importPipelineZip } from "../support/import-pipeline-zip.js";
import { zipFolderTree } from "../../services/models/index.js";

const FIXTURE = new URL("../fixtures/registry/ec2-fixture", import.meta.url).pathname;
// Kepler 0.7.12's idle call for platform power (issue 12's request with source acpi).
const ACPI_IDLE =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss"],"values":[[0,0,0,0,0,0,0,0]],"output_type":"AbsPower","source":"acpi","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';

let dir: string;
let socketPath: string;
let mesh: MeshHandle;
let closed = false;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mesh-socket-"));
  socketPath = join(dir, "estimator.sock");
  mesh = await startMesh({
    services: ["registry", "estimator"],
    logger: silentLogger(),
    env: { KEPLER_MODEL_ESTIMATOR_SOCKET: socketPath },
    flags: { "registry-port": "0", "estimator-port": "0", "model-path": join(dir, "models") },
  });
});

afterAll(async () => {
  if (!closed) await mesh?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("estimator socket in the mesh", () => {
  it("answers Kepler's sidecar call with the models the registry serves", async () => {
    const registryServer = mesh.servers.find((server) => server.name === "registry");
    expect(registryServer).toBeDefined();
    const registry = createRegistryClient(registryServer!.address);
    await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
    registry.close();
    const exchange = await keplerSidecarCall(socketPath, ACPI_IDLE);
    const response = JSON.parse(exchange.firstRead) as { powers: { platform: number[] }; msg: string };
    expect(response.msg).toBe("");
    // Kepler v0.9.0's acpi weights (the fixture): idle = Bias_Weight.
    expect(response.powers.platform[0]).toBeCloseTo(63.732101547596734, 9);
  });

  it("rejects a socket path longer than a unix socket address holds", () => {
    expect(() => readEstimatorConfig({}, { "estimator-socket": `/tmp/${"s".repeat(120)}` })).toThrow(
      "--estimator-socket: a unix socket path is at most 107 bytes, got 125",
    );
  });

  it("removes the socket file when the mesh closes", async () => {
    expect(existsSync(socketPath)).toBe(true);
    closed = true;
    await mesh.close();
    expect(existsSync(socketPath)).toBe(false);
  });
});
