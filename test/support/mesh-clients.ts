// The extractor and pipeline clients the window and allowlist tests call, on a mesh started by useE2eMesh:
// opened before the file's tests (after the mesh is up) and closed after them.
import { afterAll, beforeAll } from "vitest";
import { createExtractorClient } from "../../services/extractor/client.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import type { E2eMesh } from "./e2e-mesh.js";

export interface ExtractorAndPipeline {
  readonly extractor: ReturnType<typeof createExtractorClient>;
  readonly pipeline: ReturnType<typeof createPipelineClient>;
}

/** Registers the hooks; call it after useE2eMesh, and read the clients inside tests. */
export function useExtractorAndPipeline(mesh: E2eMesh): ExtractorAndPipeline {
  let clients: ExtractorAndPipeline | undefined;
  beforeAll(() => {
    clients = {
      extractor: createExtractorClient(mesh.address("extractor")),
      pipeline: createPipelineClient(mesh.address("pipeline")),
    };
  });
  afterAll(() => {
    clients?.extractor.close();
    clients?.pipeline.close();
  });
  const opened = () => {
    if (clients === undefined) throw new Error("the clients are opened in beforeAll");
    return clients;
  };
  return {
    get extractor() {
      return opened().extractor;
    },
    get pipeline() {
      return opened().pipeline;
    },
  };
}
