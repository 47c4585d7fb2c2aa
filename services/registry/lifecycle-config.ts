// The registry's model-lifecycle settings (EP-003): kept versions, the publish gate, archive signing.
import { readSigningKey } from "../models/index.js";
import type { ConfigKey } from "../kit/config/config-schema.js";
import type { ModelLifecycle } from "./domain/catalogue-deps.js";
import { DEFAULT_KEPT_VERSIONS } from "./domain/model-versions.js";
import { DEFAULT_GATE_MARGIN_PERCENT } from "./domain/publish-gate.js";

/** Config keys of the model lifecycle (spread into the registry's schema). */
export const lifecycleConfigSchema = {
  keptModelVersions: {
    type: "integer",
    default: DEFAULT_KEPT_VERSIONS,
    env: "KEPLER_MODEL_KEPT_VERSIONS",
    flag: "kept-model-versions",
    description:
      "Versions kept per model, the serving one included: earlier ones live in <pipeline>/.versions/ for `models rollback` (1: none kept).",
    check: (value) => (value >= 1 ? undefined : `expected at least 1, got ${value}`),
  } satisfies ConfigKey<number>,
  publishGateMarginPercent: {
    type: "integer",
    default: DEFAULT_GATE_MARGIN_PERCENT,
    env: "KEPLER_MODEL_PUBLISH_GATE_MARGIN_PERCENT",
    flag: "publish-gate-margin-percent",
    description:
      "A publish whose held-out MAE of any component exceeds the serving version's by more than this many percent is refused (FAILED_PRECONDITION), e.g. 10; -1 (default): no gate (online pipelines retrain on new windows, whose errors are not comparable).",
    check: (value) => (value >= -1 ? undefined : `expected a percentage >= 0, or -1 for no gate, got ${value}`),
  } satisfies ConfigKey<number>,
  modelSigningKeyFile: {
    type: "string",
    default: "",
    env: "KEPLER_MODEL_SIGNING_KEY_FILE",
    flag: "model-signing-key-file",
    description:
      "PEM ed25519 private key (openssl genpkey -algorithm ed25519): every archive this registry publishes is signed (signature.json); empty: not signed.",
  } satisfies ConfigKey<string>,
};

/** The catalogue's lifecycle from the settings (reads the signing key file). */
export async function lifecycleOf(config: {
  keptModelVersions: number;
  publishGateMarginPercent: number;
  modelSigningKeyFile: string;
}): Promise<ModelLifecycle> {
  return {
    keptVersions: config.keptModelVersions,
    gate: { marginPercent: config.publishGateMarginPercent },
    ...(config.modelSigningKeyFile === ""
      ? {}
      : { signingKey: await readSigningKey(config.modelSigningKeyFile, "--model-signing-key-file") }),
  };
}
