// The mesh the end-to-end tests run: all six services in one process on 127.0.0.1 port 0 over a temporary
// MODEL_PATH, with no registry rescans (the services alone write the folder). Started before the file's
// tests, closed and removed after them.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";

const SERVICES = ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"] as const;

/** The started mesh: each service's bound address and the model folder. */
export interface E2eMesh {
  address(service: (typeof SERVICES)[number]): string;
  readonly modelPath: string;
}

/**
 * Starts the mesh in a beforeAll registered where this is called (after the hooks registered before it,
 * so `prometheusAllowlist` may name a Prometheus they started) and closes it in an afterAll.
 */
export function useE2eMesh(folderPrefix: string, prometheusAllowlist?: () => string): E2eMesh {
  let modelPath: string | undefined;
  let mesh: MeshHandle | undefined;
  beforeAll(async () => {
    modelPath = await mkdtemp(join(tmpdir(), folderPrefix));
    const flags: Record<string, string> = { "model-path": modelPath, "registry-rescan-ms": "0" };
    for (const service of SERVICES) flags[`${service}-port`] = "0";
    if (prometheusAllowlist !== undefined) flags["prometheus-allowlist"] = prometheusAllowlist();
    mesh = await startMesh({ logger: silentLogger(), flags });
  }, 120_000);
  afterAll(async () => {
    await mesh?.close();
    if (modelPath !== undefined) await rm(modelPath, { recursive: true, force: true });
  });
  const started = () => {
    if (mesh === undefined || modelPath === undefined) throw new Error("the mesh is started in beforeAll");
    return { mesh, modelPath };
  };
  return {
    address: (service) => started().mesh.servers.find((server) => server.name === service)!.address,
    get modelPath() {
      return started().modelPath;
    },
  };
}
