// store-format.json under an S3 store's prefix: checked when the registry opens the store, written when
// missing. The rules (format 0, newer refused) live in ../store-format.ts, shared with the local folder.
import type { ObjectBucket } from "../../../object-store/index.js";
import { STORE_FORMAT_FILE, storeFormatOf, storeFormatText } from "../store-format.js";

/**
 * Checks the prefix's store format (FailedPreconditionError for a newer or unreadable one) and writes
 * the current format under a prefix without one: an older store is read unchanged, its objects
 * untouched. Returns the format found (0: none).
 */
export async function checkS3StoreFormat(bucket: ObjectBucket): Promise<number> {
  const text = (await bucket.get(STORE_FORMAT_FILE))?.toString("utf8");
  const format = storeFormatOf(text, bucket.name);
  // One PUT replaces an object whole: no reader sees half a file.
  if (text === undefined) await bucket.put(STORE_FORMAT_FILE, storeFormatText());
  return format;
}
