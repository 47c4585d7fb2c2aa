// Bulk bytes as stream messages: the one place a buffer is cut into pieces of at most CHUNK_BYTES.
import { CHUNK_BYTES } from "./message-limits.js";

/** Consecutive views of `bytes`, each at most CHUNK_BYTES long; none for empty bytes. */
export function* byteChunks<T extends Uint8Array>(bytes: T): Generator<T> {
  for (let start = 0; start < bytes.byteLength; start += CHUNK_BYTES) yield bytes.subarray(start, start + CHUNK_BYTES) as T;
}
