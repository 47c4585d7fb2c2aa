// Crash safety: a publish killed (SIGKILL, separate process) at any point leaves the previous model or
// the new one, complete, and a restarted registry serves it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { createRegistryClient } from "./client.js";
import { recoverGroup } from "./storage/local/atomic-publish.js";
import { startRegistry } from "./main.js";
import { GROUP, metadataOf, PUBLISH_CHILD as CHILD, version, writeInputs } from "../../test/support/crash-publish.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crash-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function served(): Promise<{ zip: Buffer; folderMetadata: string; leftovers: string[] }> {
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  const client = createRegistryClient(handle.address);
  try {
    const location = {
      pipelineName: "std",
      energySource: "rapl-sysfs",
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      featureGroup: "BPFOnly",
      modelName: "KNeighborsRegressorTrainer_0",
    };
    const chunks: Buffer[] = [];
    for await (const message of client.client.getModelArchive({ location })) chunks.push(message.archiveChunk);
    const group = join(dir, "models", GROUP);
    return {
      zip: Buffer.concat(chunks),
      folderMetadata: await readFile(join(group, "KNeighborsRegressorTrainer_0/metadata.json"), "utf8"),
      leftovers: (await readdir(group)).filter((name) => name.startsWith(".")),
    };
  } finally {
    client.close();
    await handle.close();
  }
}

async function runChild(args: string[], until: (output: string) => boolean): Promise<void> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", CHILD, join(dir, "models"), ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      if (until(output)) {
        child.kill("SIGKILL");
        resolve();
      }
    });
    child.on("exit", (code, signal) =>
      signal === "SIGKILL" ? resolve() : reject(new Error(`child exited early (${code}): ${output}`)),
    );
  });
  await new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.on("exit", () => resolve()),
  );
}

describe("a publish killed midway", () => {
  const v1 = version(10, 2000);
  const v2 = version(5, 3000);

  async function publishFirstVersion(): Promise<void> {
    const [location, zip] = await writeInputs(dir, [v1]);
    await runChild([location as string, zip as string, "done"], (out) => out.includes("at done"));
  }

  it("before its commit leaves the previous model, served and intact", async () => {
    await publishFirstVersion();
    const [location, zip] = await writeInputs(dir, [v2]);
    await runChild([location as string, zip as string, "staged"], (out) => out.includes("at staged"));
    const after = await served();
    expect(Buffer.compare(after.zip, Buffer.from(v1.zip))).toBe(0);
    expect(after.folderMetadata).toBe(metadataOf(v1.zip));
    expect(after.leftovers).toEqual([]);
  });

  it("after its commit, with the old folder moved aside, is completed on restart", async () => {
    await publishFirstVersion();
    const [location, zip] = await writeInputs(dir, [v2]);
    await runChild([location as string, zip as string, "replacing"], (out) => out.includes("at replacing"));
    const names = await readdir(join(dir, "models", GROUP));
    expect(names.includes("KNeighborsRegressorTrainer_0")).toBe(false);
    const after = await served();
    expect(Buffer.compare(after.zip, Buffer.from(v2.zip))).toBe(0);
    expect(after.folderMetadata).toBe(metadataOf(v2.zip));
    expect(after.leftovers).toEqual([]);
  });

  it("at an arbitrary moment of repeated publishes leaves one complete version", async () => {
    const [location, a, b] = await writeInputs(dir, [v1, v2]);
    await runChild([location as string, a as string, b as string, "loop"], (out) => (out.match(/published/g) ?? []).length >= 7);
    const after = await served();
    const which = [v1, v2].findIndex((v) => Buffer.compare(after.zip, Buffer.from(v.zip)) === 0);
    expect(which).toBeGreaterThanOrEqual(0);
    expect(after.folderMetadata).toBe(metadataOf([v1, v2][which]?.zip as Uint8Array));
    expect(after.leftovers).toEqual([]);
  });
});

describe("recoverGroup", () => {
  it("puts back a model folder another writer moved aside, and removes temporary files", async () => {
    const group = join(dir, "group");
    await mkdir(join(group, ".M_0.old-abc123"), { recursive: true });
    await writeFile(join(group, ".M_0.old-abc123/metadata.json"), "{}");
    await writeFile(join(group, ".M_0.zip.tmp-def456"), "partial");
    expect(await recoverGroup(group)).toEqual([
      "restored M_0 from an interrupted replacement",
      "removed the leftover .M_0.zip.tmp-def456",
    ]);
    expect((await readdir(group)).sort()).toEqual(["M_0"]);
  });
});
