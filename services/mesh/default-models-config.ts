import type { ConfigKey, ConfigSchema } from "../kit/config/config-schema.js";
import { metricsHostKey, metricsPortKey } from "../kit/observe/metrics.js";
import { metricsTokensFileKey } from "../kit/observe/metrics-auth.js";
import { otlpEndpointKey } from "../kit/observe/tracing.js";

/** `--default-models` / `--no-default-models`: the embedded default of `npm start`. */
const defaultModelsKey: ConfigKey<boolean> = {
  type: "boolean",
  default: true,
  env: "KEPLER_MODEL_DEFAULT_MODELS",
  flag: "default-models",
  description:
    "When MODEL_PATH holds no models, train the default pipeline from the bundled recording before the estimator starts (--no-default-models skips it).",
};

/** Settings of the all-in-one launcher itself (the services have their own schemas). */
export const meshConfigSchema = {
  defaultModels: defaultModelsKey,
  metricsHost: metricsHostKey,
  metricsPort: metricsPortKey,
  metricsTokensFile: metricsTokensFileKey,
  otlpEndpoint: otlpEndpointKey,
} satisfies ConfigSchema;
