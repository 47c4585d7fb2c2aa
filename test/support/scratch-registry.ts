// A real registry on 127.0.0.1:0 over <a temporary folder>/models, started before the file's tests and
// closed, with its folder removed, after them; the folder is the test's to write inputs into too.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { startRegistry } from "../../services/registry/main.js";

export interface ScratchRegistry {
  /** The temporary folder (the registry's models are in its models/). */
  readonly dir: string;
  readonly registry: ServerHandle;
}

/** Registers the hooks where it is called; read the fields inside tests. */
export function useScratchRegistry(folderPrefix: string): ScratchRegistry {
  const started: { dir: string; registry?: ServerHandle } = { dir: "" };
  beforeAll(async () => {
    started.dir = await mkdtemp(join(tmpdir(), folderPrefix));
    started.registry = await startRegistry(
      { host: "127.0.0.1", port: 0, modelPath: join(started.dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
      { logger: silentLogger() },
    );
  });
  afterAll(async () => {
    await started.registry?.close();
    if (started.dir !== "") await rm(started.dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return started.dir;
    },
    get registry() {
      if (started.registry === undefined) throw new Error("the registry is started in beforeAll");
      return started.registry;
    },
  };
}
