// `kepler-model models backup <file|s3://bucket/key>` and `models restore <file|s3://bucket/key>`: a whole
// model store (the local MODEL_PATH, or --model-store s3://bucket/prefix) to one backup zip and back,
// verified on restore (services/registry/storage/store-backup.ts; docs/operations.md). Offline: they
// read and write the store directly, so stop the registry (or point restore at an empty store) first.
import { readFile, rename, writeFile } from "node:fs/promises";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { openBucket, parseS3Url, s3ConfigSchema, s3SettingsOf } from "../../services/object-store/index.js";
import { openStorage } from "../../services/registry/storage/backends.js";
import { checkLocalStoreFormat } from "../../services/registry/storage/local/local-store-format.js";
import { LocalFolderStorage } from "../../services/registry/storage/local/local-folder-storage.js";
import type { ModelStorage } from "../../services/registry/storage/model-storage.js";
import { type BackupSummary, backupStore, restoreStore } from "../../services/registry/storage/store-backup.js";
import { type CommandInput, type FlagSpec, UsageError } from "../command.js";

export const MODELS_BACKUP_FLAGS: readonly FlagSpec[] = [
  {
    name: "model-path",
    valueName: "folder",
    description: `The local model store to back up or restore into (backup, restore; env ${modelPathKey.env}, default ${modelPathKey.default}).`,
  },
  {
    name: "model-store",
    valueName: "s3://bucket/prefix",
    description: "Back up or restore the shared S3 model store instead of --model-path (backup, restore).",
  },
];

type Input = Pick<CommandInput, "flags" | "env">;

async function openStore({ flags, env }: Input): Promise<{ storage: ModelStorage; localFolder?: string }> {
  const store = typeof flags["model-store"] === "string" ? flags["model-store"] : "";
  if (store !== "")
    return { storage: await openStorage(store, { s3: s3SettingsOf(readConfig(s3ConfigSchema, env, flags)) }, "--model-store") };
  const { modelPath } = readConfig({ modelPath: modelPathKey }, env, flags);
  await checkLocalStoreFormat(modelPath, { stamp: false });
  return { storage: await LocalFolderStorage.open(modelPath, silentLogger()), localFolder: modelPath };
}

// A backup's place: a file, or one object s3://bucket/key.
async function objectAt(url: string, { flags, env }: Input) {
  const { bucket, prefix } = parseS3Url(url, "backup");
  const slash = prefix.lastIndexOf("/");
  const name = prefix.slice(slash + 1);
  if (name === "") throw new UsageError(`expected s3://bucket/key for the backup, got "${url}"`);
  const settings = s3SettingsOf(readConfig(s3ConfigSchema, env, flags));
  return { bucket: await openBucket(settings, { bucket, prefix: slash < 0 ? "" : prefix.slice(0, slash) }), name };
}

const described = (s: BackupSummary) => `${s.models} models, ${s.pipelineFiles} pipeline files, ${s.bytes} bytes`;

/** Runs `models backup|restore <target>`; returns the line to print. */
export async function runModelsBackup(action: "backup" | "restore", target: string | undefined, input: Input): Promise<string> {
  if (target === undefined || target === "")
    throw new UsageError(`models ${action} needs the backup's place: a file or s3://bucket/key`);
  const { storage, localFolder } = await openStore(input);
  try {
    if (action === "backup") {
      const { zip, summary } = await backupStore(storage);
      if (target.startsWith("s3://")) {
        const { bucket, name } = await objectAt(target, input);
        await bucket.put(name, zip);
      } else {
        // Whole or not at all: a half-written backup never carries the final name.
        await writeFile(`${target}.partial`, zip);
        await rename(`${target}.partial`, target);
      }
      return `Backed up ${storage.name} to ${target}: ${described(summary)}.\n`;
    }
    let zip: Uint8Array;
    if (target.startsWith("s3://")) {
      const { bucket, name } = await objectAt(target, input);
      const data = await bucket.get(name);
      if (data === undefined) throw new UsageError(`no backup at ${target}`);
      zip = data;
    } else {
      zip = await readFile(target).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot read the backup ${target}: ${error.code ?? error.message}`);
      });
    }
    const summary = await restoreStore(zip, storage, target);
    // A restored local store carries this version's format, as one the registry starts on would.
    if (localFolder !== undefined) await checkLocalStoreFormat(localFolder);
    return `Restored ${target} into ${storage.name} and read every file back: ${described(summary)}, SHA-256 identical.\n`;
  } finally {
    storage.close();
  }
}
