import type { ConfigOf } from "../kit/config/config-schema.js";
import { modelPathKey } from "../kit/config/model-path-key.js";
import { peerAddressKey } from "../kit/config/service-addresses.js";
import { configReader, peerCallKeys, serviceConfigSchema } from "../kit/config/service-config.js";
import { workerThreadsKey } from "../kit/workers/worker-pool.js";

/** Settings of the trainer service: every key has a type, default, env var, flag and description. */
export const trainerConfigSchema = serviceConfigSchema(
  "trainer",
  {
    registryAddress: {
      ...peerAddressKey("registry"),
      description:
        "host:port of the registry: trained models are published through its PublishModel; empty writes them into the local model folder instead.",
    },
    modelPath: modelPathKey,
    checkpointUrl: {
      type: "string",
      default: "",
      env: "KEPLER_MODEL_CHECKPOINT_URL",
      flag: "checkpoint-url",
      description:
        "Top URL (http, https or file:) of a model DB in the reference's layout (<top>/<pipeline>/<source>/<OutputType>/<group>/<model>.zip): a continued run without a local checkpoint continues from the model published there; the registry is asked first when configured.",
    },
    workerThreads: workerThreadsKey,
    trainerModules: {
      type: "list",
      default: [] as string[],
      env: "KEPLER_MODEL_TRAINER_MODULES",
      flag: "trainer-modules",
      description:
        "Comma-separated module paths or file: URLs imported at start, each registering trainers with registerTrainer (docs/adding-a-trainer.md); they run with the server's rights, so list only your own code.",
    },
  },
  peerCallKeys,
);

export type TrainerConfig = ConfigOf<typeof trainerConfigSchema>;

/** Reads the trainer config from flags and environment, validated once. */
export const readTrainerConfig = configReader(trainerConfigSchema);
