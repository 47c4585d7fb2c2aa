import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readZip } from "./zip-reader.js";
import { createZip } from "./zip-writer.js";
import { needs, systemTool, toolPath } from "../../test/support/system-tools.js";

const encoder = new TextEncoder();
const text = (s: string) => encoder.encode(s);

describe("createZip", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "zip-test-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const entries = [
    // Repetitive: DEFLATE makes it smaller.
    { name: "metadata.json", data: text(JSON.stringify({ model_name: "X_0", features: Array(50).fill("cpu_instructions") })) },
    // Two bytes: DEFLATE would grow it, so it is STOREd.
    { name: "weight.json", data: text("{}") },
  ];

  it("round-trips through our reader, byte for byte", () => {
    const read = readZip(createZip(entries));
    expect(read.map((e) => e.name)).toEqual(["metadata.json", "weight.json"]);
    expect(read.map((e) => Buffer.from(e.data).toString())).toEqual(entries.map((e) => Buffer.from(e.data).toString()));
  });

  const python = systemTool("python3");
  it("is a valid archive for Python's zipfile (the reference's reader)", needs(python), async () => {
    const path = join(dir, "model.zip");
    await writeFile(path, createZip(entries));
    const script =
      "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint([(i.filename, i.compress_type, i.file_size) for i in z.infolist()])\nprint(z.read('weight.json').decode())";
    const run = spawnSync(toolPath(python), ["-c", script, path], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const size = entries[0]?.data.length;
    expect(run.stdout).toBe(`[('metadata.json', 8, ${size}), ('weight.json', 0, 2)]\n{}\n`);
  });

  it("rejects a corrupted entry by its CRC-32", () => {
    const zip = createZip([{ name: "a.txt", data: text("ab") }]);
    const at = 30 + "a.txt".length; // first payload byte of the STOREd entry
    zip.writeUInt8(zip.readUInt8(at) ^ 0xff, at);
    expect(() => readZip(zip)).toThrow("zip: entry a.txt fails its CRC-32 check");
  });
});
