// A temporary model folder for trainModels, made before each test and removed after it, with the deps
// that publish archives and keep checkpoints in it as the trainer service does.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { publishModelArchive, readCheckpoint, writeCheckpoint } from "../../services/models/index.js";
import type { TrainModelsDeps } from "../../services/trainer/domain/train-models.js";

export interface TrainModelFolder {
  /** The folder of the test that runs now. */
  readonly modelPath: string;
  /** trainModels' deps over that folder. */
  readonly deps: TrainModelsDeps;
}

/** Registers the hooks in the calling describe block; read the fields inside a test. */
export function useTrainModelFolder(): TrainModelFolder {
  const current = { modelPath: "", deps: undefined as unknown as TrainModelsDeps };
  beforeEach(async () => {
    const modelPath = await mkdtemp(join(tmpdir(), "model-path-"));
    current.modelPath = modelPath;
    current.deps = {
      publishModel: async (archive) => {
        await publishModelArchive(modelPath, archive);
      },
      readCheckpoint: (group, trainer, component, nodeType) => readCheckpoint(modelPath, group, trainer, component, nodeType),
      writeCheckpoint: async (group, checkpoint) => {
        await writeCheckpoint(modelPath, group, checkpoint);
      },
    };
  });
  afterEach(async () => {
    await rm(current.modelPath, { recursive: true, force: true });
  });
  return current;
}
