// A pipeline read from a running registry (local folder or S3 behind it, whatever its storage) for the
// file-based commands `evaluate` and `report`: ExportPipeline's zip (kepler-model-db layout, one
// `<model>.zip` per model) unpacked into a temporary MODEL_PATH, each model zip into its folder, as the
// reference's unpack_zip_files does, so the same folder readers serve both.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PeerConnection } from "../../services/kit/security/peer-connection.js";
import { readZip, WEIGHT_FILE } from "../../services/models/index.js";
import { createRegistryClient } from "../../services/registry/client.js";

// Entry names come from the zip: refuse anything that would leave the folder.
function safeJoin(root: string, name: string): string {
  if (name.startsWith("/") || name.split("/").some((part) => part === ".." || part === ""))
    throw new Error(`the exported pipeline holds an unsafe path "${name}"`);
  return join(root, name);
}

async function writeEntry(root: string, name: string, data: Uint8Array): Promise<void> {
  const path = safeJoin(root, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, data);
}

/** Runs `body` with a temporary MODEL_PATH holding `pipelineName` as the registry at `address` exports it. */
export async function withRegistryPipeline<T>(
  address: string,
  connection: PeerConnection | undefined,
  pipelineName: string,
  body: (modelPath: string) => Promise<T>,
): Promise<T> {
  const registry = createRegistryClient(address, connection);
  const modelPath = await mkdtemp(join(tmpdir(), "kepler-model-registry-"));
  try {
    const chunks: Buffer[] = [];
    for await (const message of registry.client.exportPipeline({ pipelineName })) chunks.push(message.archiveChunk);
    const root = join(modelPath, pipelineName);
    const entries = readZip(Buffer.concat(chunks), `${pipelineName}.zip`);
    const names = new Set(entries.map((entry) => entry.name));
    for (const entry of entries) {
      if (!entry.name.endsWith(".zip")) {
        await writeEntry(root, entry.name, entry.data);
        continue;
      }
      const folder = entry.name.slice(0, -".zip".length);
      for (const file of readZip(entry.data, entry.name)) await writeEntry(root, `${folder}/${file.name}`, file.data);
      // The kepler-model-db sibling weight file becomes the folder's weight.json when the zip has none.
      const sibling = entries.find((e) => e.name === `${folder}.json`);
      if (sibling !== undefined && !names.has(`${folder}/${WEIGHT_FILE}`))
        await writeEntry(root, `${folder}/${WEIGHT_FILE}`, sibling.data);
    }
    return await body(modelPath);
  } finally {
    registry.close();
    await rm(modelPath, { recursive: true, force: true });
  }
}
