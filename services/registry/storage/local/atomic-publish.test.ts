// Domain test: recovery from every partial journal state a crash (of the process or the machine) or a
// hand edit can leave. Each state is forged on disk; recovery must end with one complete version of
// the model (the previous or the new one), no leftovers, and never throw.
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { oneFeatureArchive } from "../../../../test/support/one-feature-archive.js";
import { ModelCatalogue } from "../../domain/model-catalogue.js";
import { recoverGroup, writeModelFiles } from "./atomic-publish.js";
import { LocalFolderStorage } from "./local-folder-storage.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "journal-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const M = "M_0";
const files = (version: string) => ({
  zip: new TextEncoder().encode(`zip ${version}`),
  weightJson: `weights ${version}`,
  folderEntries: [{ name: "metadata.json", data: new TextEncoder().encode(`metadata ${version}`) }],
});

/** Which complete version the group holds; throws when its files disagree or leftovers remain. */
async function versionOf(group: string): Promise<string> {
  const zip = (await readFile(join(group, `${M}.zip`), "utf8")).slice(4);
  const metadata = (await readFile(join(group, M, "metadata.json"), "utf8")).slice(9);
  const weights = (await readFile(join(group, `${M}.json`), "utf8")).slice(8);
  expect({ metadata, weights }).toEqual({ metadata: zip, weights: zip });
  expect((await readdir(group)).sort()).toEqual([M, `${M}.json`, `${M}.zip`]);
  return zip;
}

/** v1 in place and a staging folder of v2 written by hand, as a publish leaves it before its marker. */
async function stageSecondVersion(): Promise<{ group: string; staging: string }> {
  const group = join(dir, "group");
  await writeModelFiles(group, M, files("v1"));
  const staging = join(group, `.${M}.publish-abc123`);
  await mkdir(join(staging, "folder"), { recursive: true });
  await writeFile(join(staging, "model.zip"), "zip v2");
  await writeFile(join(staging, "weight-sibling.json"), "weights v2");
  await writeFile(join(staging, "folder", "metadata.json"), "metadata v2");
  return { group, staging };
}

describe("recoverGroup with an unreadable COMMITTED marker and nothing applied keeps the previous model", () => {
  for (const [state, marker] of [
    ["empty", ""],
    ["truncated", '{"weig'],
    ["garbage bytes", "\u0000\u00ff\u0013"],
    ["JSON null", "null"],
    ["JSON without weights", "{}"],
  ] as const) {
    it(state, async () => {
      const { group, staging } = await stageSecondVersion();
      await writeFile(join(staging, "COMMITTED"), marker);
      const actions = await recoverGroup(group);
      expect(actions).toHaveLength(1);
      expect(actions[0]).toMatch(
        /^discarded the publish of M_0 whose COMMITTED marker is unreadable \(.+\); nothing had been applied$/,
      );
      expect(await versionOf(group)).toBe("v1");
    });
  }

  it("a COMMITTED that is a folder", async () => {
    const { group, staging } = await stageSecondVersion();
    await mkdir(join(staging, "COMMITTED"));
    expect(await recoverGroup(group)).toEqual([
      "discarded the publish of M_0 whose COMMITTED marker is unreadable (EISDIR); nothing had been applied",
    ]);
    expect(await versionOf(group)).toBe("v1");
  });
});

describe("recoverGroup completes a publish that had begun moving files", () => {
  it("empty marker, new folder already in place, old folder aside, zip still staged", async () => {
    const { group, staging } = await stageSecondVersion();
    await writeFile(join(staging, "COMMITTED"), "");
    await rename(join(group, M), join(group, `.${M}.old-abc123`));
    await rename(join(staging, "folder"), join(group, M));
    expect(await recoverGroup(group)).toEqual([
      "completed the partly applied publish of M_0 whose COMMITTED marker is unreadable (empty)",
    ]);
    expect(await versionOf(group)).toBe("v2");
  });

  it("valid marker, old folder moved aside, new folder not yet moved (half-renamed)", async () => {
    const { group, staging } = await stageSecondVersion();
    await writeFile(join(staging, "COMMITTED"), '{"weights":true}');
    await rename(join(group, M), join(group, `.${M}.old-abc123`));
    expect(await recoverGroup(group)).toEqual(["completed the committed publish of M_0"]);
    expect(await versionOf(group)).toBe("v2");
  });

  it("valid marker, everything moved but the staging folder and the old folder not yet removed", async () => {
    const { group, staging } = await stageSecondVersion();
    await writeFile(join(staging, "COMMITTED"), '{"weights":true}');
    await rename(join(group, M), join(group, `.${M}.old-abc123`));
    await rename(join(staging, "folder"), join(group, M));
    await rename(join(staging, "model.zip"), join(group, `${M}.zip`));
    await rename(join(staging, "weight-sibling.json"), join(group, `${M}.json`));
    expect(await recoverGroup(group)).toEqual(["completed the committed publish of M_0"]);
    expect(await versionOf(group)).toBe("v2");
  });
});

describe("recoverGroup discards what was never committed", () => {
  it("no marker, staged files missing (killed while staging)", async () => {
    const { group, staging } = await stageSecondVersion();
    await rm(join(staging, "folder"), { recursive: true });
    await rm(join(staging, "weight-sibling.json"));
    expect(await recoverGroup(group)).toEqual(["discarded the unfinished publish of M_0"]);
    expect(await versionOf(group)).toBe("v1");
  });

  it("a journal name that is a plain file", async () => {
    const group = join(dir, "group");
    await writeModelFiles(group, M, files("v1"));
    await writeFile(join(group, `.${M}.publish-zzz999`), "not a folder");
    expect(await recoverGroup(group)).toEqual(["discarded the unfinished publish of M_0"]);
    expect(await versionOf(group)).toBe("v1");
  });

  it("an old folder with no model beside it is put back", async () => {
    const group = join(dir, "group");
    await writeModelFiles(group, M, files("v1"));
    await rename(join(group, M), join(group, `.${M}.old-abc123`));
    expect(await recoverGroup(group)).toEqual(["restored M_0 from an interrupted replacement"]);
    expect(await versionOf(group)).toBe("v1");
  });
});

it("the registry's store opens over an empty COMMITTED marker (it used to exit 1) and serves the previous model", async () => {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const warnings: string[] = [];
  const archive = oneFeatureArchive();
  const first = await ModelCatalogue.open(await LocalFolderStorage.open(dir, quiet), { logger: quiet });
  await first.publish({ location: archive.location, zip: archive.zip });
  first.close();
  const group = join(dir, "std/acpi/AbsPower/BPFOnly");
  const staging = join(group, ".SGDRegressorTrainer_0.publish-abc123");
  await mkdir(join(staging, "folder"), { recursive: true });
  await writeFile(join(staging, "model.zip"), archive.zip);
  await writeFile(join(staging, "COMMITTED"), "");
  const logger = { ...quiet, warn: (fields: { action?: string }) => warnings.push(fields.action ?? "") };
  const store = await ModelCatalogue.open(await LocalFolderStorage.open(dir, logger), { logger });
  expect(store.list().map((m) => m.location.modelName)).toEqual(["SGDRegressorTrainer_0"]);
  expect(warnings).toEqual([
    "discarded the publish of SGDRegressorTrainer_0 whose COMMITTED marker is unreadable (empty); nothing had been applied",
  ]);
  expect((await readdir(group)).filter((name) => name.startsWith("."))).toEqual([]);
  store.close();
});
