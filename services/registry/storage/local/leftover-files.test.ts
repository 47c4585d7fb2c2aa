// Domain test: temporary files of killed writes are removed when the model folder is opened, fresh ones
// (another registry writing now) and everything else are kept.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../kit/observe/logger.js";
import { LEFTOVER_AGE_MS } from "./leftover-files.js";
import { LocalFolderStorage } from "./local-folder-storage.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "leftover-files-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function file(path: string, ageMs: number): Promise<string> {
  const full = join(root, path);
  await mkdir(join(full, ".."), { recursive: true });
  await writeFile(full, "x");
  const at = (Date.now() - ageMs) / 1000;
  await utimes(full, at, at);
  return full;
}

describe("leftovers of killed writes", () => {
  it("removes old .<name>.tmp-<suffix> files of pipelines, reports and profiles on open; keeps fresh ones and real files", async () => {
    const old = LEFTOVER_AGE_MS + 60_000;
    const leftovers = [
      await file("p/.metadata.json.tmp-1a2b3c", old),
      await file("p/report/.report.html.tmp-9f8e7d", old),
      await file("p/profile/.rapl-sysfs.json.tmp-abc_12", old),
    ];
    const kept = [
      await file("p/.node_type_index.json.tmp-fresh1", 1000),
      await file("p/metadata.json", old),
      await file("p/report/report.html", old),
      await file("p/.hidden-note", old),
    ];
    await LocalFolderStorage.open(root, silentLogger());
    expect(leftovers.map(existsSync)).toEqual([false, false, false]);
    expect(kept.map(existsSync)).toEqual([true, true, true, true]);
  });
});
