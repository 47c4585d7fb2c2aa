// The model store's format version: `store-format.json` at the store's root ({"format_version": 1,
// "written_by": "<kepler-model version>"}). A store without it was written before stores carried one
// (format 0: the same kepler-model-db layout) and is read as is. A store of a newer format than this
// code knows is refused, with the way out, so an older kepler-model never misreads a newer store
// (docs/operations.md: compatibility, upgrade and rollback).
import { FailedPreconditionError } from "../../domain/errors.js";
import { buildInfo } from "../../domain/build-info.js";

export const STORE_FORMAT_FILE = "store-format.json";
/** The newest store format this code reads and the one it writes. */
export const STORE_FORMAT_VERSION = 1;

/** The format of a store from its store-format.json text (undefined: no file, format 0); throws when unreadable here. */
export function storeFormatOf(text: string | undefined, storeName: string): number {
  if (text === undefined) return 0;
  let format: unknown;
  try {
    format = (JSON.parse(text) as { format_version?: unknown }).format_version;
  } catch (error) {
    throw new FailedPreconditionError(`${storeName}/${STORE_FORMAT_FILE}: not JSON (${(error as Error).message})`);
  }
  if (typeof format !== "number" || !Number.isInteger(format) || format < 0)
    throw new FailedPreconditionError(`${storeName}/${STORE_FORMAT_FILE}: "format_version" is not a format number`);
  if (format > STORE_FORMAT_VERSION)
    throw new FailedPreconditionError(
      `${storeName} holds a model store of format ${format}, newer than kepler-model ${buildInfo().version} reads ` +
        `(formats 0 to ${STORE_FORMAT_VERSION}): run the kepler-model version that wrote it or a newer one, ` +
        "or restore a backup taken with this version (docs/operations.md)",
    );
  return format;
}

/** The store-format.json this code writes. */
export function storeFormatText(): string {
  return `${JSON.stringify({ format_version: STORE_FORMAT_VERSION, written_by: buildInfo().version })}\n`;
}
