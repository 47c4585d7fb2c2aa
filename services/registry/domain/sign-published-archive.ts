// Signing an archive as the registry publishes it (EP-003). Kepler-model-db models keep weight.json beside
// the zip (`<model>.json`): it goes into the signed zip, so a verifier runs only what the signature covers.
import { type ArchiveSigningKey, signArchiveEntries } from "../../models/archive-signature.js";
import { createZip, readZip, WEIGHT_FILE, type ZipLimits } from "../../models/index.js";
import type { PublishInput } from "./model-to-publish.js";

/** The input with its zip signed by `key` (any earlier signature replaced). */
export function signPublishInput(input: PublishInput, key: ArchiveSigningKey, limits: ZipLimits): PublishInput {
  const entries = readZip(input.zip, "archive", limits);
  const weightJson = input.weightJson === "" ? undefined : input.weightJson;
  if (weightJson !== undefined && !entries.some((e) => e.name === WEIGHT_FILE))
    entries.push({ name: WEIGHT_FILE, data: new TextEncoder().encode(weightJson) });
  return { ...input, zip: createZip(signArchiveEntries(entries, key)) };
}
