// `models rollback` (EP-003): the newest kept version of a model serves again. It is published as it was
// kept (not gated, not re-signed), announced on WatchModels as a publish so estimators switch, and
// leaves the kept versions; the version it replaces is dropped (it is the one being rolled back).
import { FailedPreconditionError } from "../../domain/errors.js";
import type { ModelLocation } from "../../models/index.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import { archiveVersionOf, listKeptVersions, readKeptVersion, removeKeptVersion } from "./model-versions.js";
import { locationKey, type StoredModel } from "./stored-model.js";

/** What a rollback did. */
export interface RollbackResult {
  model: StoredModel;
  /** The archive version that served before (archiveVersionOf). */
  fromVersion: string;
  /** The archive version serving now. */
  toVersion: string;
  /** Earlier versions still kept after this one was restored. */
  remainingVersions: number;
}

/** Restores the newest kept version of the model at `location`; NotFoundError without a model there. */
export async function rollbackModel(catalogue: ModelCatalogue, location: ModelLocation): Promise<RollbackResult> {
  const serving = catalogue.get(location);
  const where = serving.location;
  const store = catalogue.versionStorage;
  const kept = await listKeptVersions(store, where);
  const newest = kept.at(-1);
  const bytes = newest === undefined ? undefined : await readKeptVersion(store, where, newest);
  if (newest === undefined || bytes === undefined)
    throw new FailedPreconditionError(`model ${locationKey(where)} has no earlier version to roll back to`, {
      subject: locationKey(where),
    });
  const fromVersion = archiveVersionOf(await catalogue.readArchive(serving));
  const { model } = await catalogue.publish({ location: where, ...bytes }, { rollback: true });
  await removeKeptVersion(store, where, newest);
  return { model, fromVersion, toVersion: archiveVersionOf(bytes.zip), remainingVersions: kept.length - 1 };
}
