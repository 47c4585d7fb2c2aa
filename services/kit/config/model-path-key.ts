import type { ConfigKey } from "./config-schema.js";

/** MODEL_PATH, the reference's name: the local model folder in the kepler-model-db layout. */
export const modelPathKey: ConfigKey<string> = {
  type: "string",
  default: ".kepler-model/models",
  env: "MODEL_PATH",
  flag: "model-path",
  description: "Local model folder (kepler-model-db layout: <pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>).",
};
