// What a registry does around its own publishes (EP-003): sign the archive, gate the new version on its
// held-out error, and keep the version it replaces. Shared-store pulls and rollbacks skip all three.
import type { ModelStorage } from "../storage/model-storage.js";
import type { ModelLifecycle } from "./catalogue-deps.js";
import type { PublishInput } from "./model-to-publish.js";
import { keepServingVersion } from "./model-versions.js";
import { assertPassesGate } from "./publish-gate.js";
import { signPublishInput } from "./sign-published-archive.js";
import type { StoredModel } from "./stored-model.js";
import type { ZipLimits } from "../../models/index.js";

/** The input to publish: signed when the lifecycle has a signing key. */
export function signedForPublish(input: PublishInput, lifecycle: ModelLifecycle | undefined, limits: ZipLimits): PublishInput {
  return lifecycle?.signingKey === undefined ? input : signPublishInput(input, lifecycle.signingKey, limits);
}

/** Gates the candidate (not imports) and keeps the serving version it replaces; throws when the gate refuses. */
export async function beforeReplacing(
  lifecycle: ModelLifecycle | undefined,
  versions: ModelStorage,
  serving: StoredModel | undefined,
  candidate: StoredModel,
  kind: "published" | "imported",
): Promise<void> {
  if (lifecycle === undefined) return;
  if (kind !== "imported") assertPassesGate(serving, candidate, lifecycle.gate);
  if (serving !== undefined)
    await keepServingVersion(versions, candidate.location, serving.publishedTimeSeconds, lifecycle.keptVersions);
}
