// The storages a registry can share its models through (`--model-store <url>`), chosen by URL scheme.
// Adding a backend: a folder storage/<backend>/ with a ModelStorage and its StorageBackend, and its
// line in STORAGE_BACKENDS below; the storage-contract test (test/registry/storage-contract.test.ts)
// then runs every case against it.
import { InvalidInputError } from "../../domain/errors.js";
import type { ModelStorage, StorageBackend, StorageSettings } from "./model-storage.js";
import { s3Backend } from "./s3/s3-backend.js";

const STORAGE_BACKENDS: readonly StorageBackend[] = [s3Backend];

function backendOf(url: string, field: string): StorageBackend {
  const backend = STORAGE_BACKENDS.find((b) => url.startsWith(`${b.scheme}//`));
  if (backend === undefined)
    throw new InvalidInputError(field, `expected ${STORAGE_BACKENDS.map((b) => b.urlForm).join(" or ")}, got "${url}"`);
  return backend;
}

/** Checks a shared store's URL; InvalidInputError naming `field` when no backend takes it or it is malformed. */
export function checkStorageUrl(url: string, field: string): void {
  backendOf(url, field).checkUrl(url, field);
}

/** Opens the shared store a URL names. */
export async function openStorage(url: string, settings: StorageSettings, field: string): Promise<ModelStorage> {
  const backend = backendOf(url, field);
  backend.checkUrl(url, field);
  return backend.open(url, settings, field);
}
