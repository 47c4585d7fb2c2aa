// `kepler-model extract` on the recorded coremark response, against the reference's CSV.
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractorFixturePath, readGoldenCsv, relativeError } from "../../test/support/extractor-fixtures.js";
import { runCliCaptured as run } from "../../test/support/run-cli.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");
const IDLE = extractorFixturePath("idle-2023-12-13.json.gz");

/** `extract --input <recording> --source <source> --feature-group <featureGroup>`, then `flags`. */
const extract = (recording: string, source: string, featureGroup: string, flags: readonly string[]) =>
  run(["extract", "--input", recording, "--source", source, "--feature-group", featureGroup, ...flags]);

describe("kepler-model extract", () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), "cli-extract-"));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("writes the reference's CSV for coremark rapl-sysfs/CounterIRQCombined (data labelled `rapl`)", async () => {
    const out = join(folder, "table.csv");
    const result = await extract(COREMARK, "rapl-sysfs", "CounterIRQCombined", ["--out", out]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote ${out}: 187 rows`);
    expect(result.stdout).toContain("cpu_instructions             0.98580313972");
    const golden = readGoldenCsv("extract_abs_rapl-sysfs_CounterIRQCombined.csv");
    const lines = (await readFile(out, "utf8")).trimEnd().split("\n");
    expect(lines[0]).toBe(golden.text.split("\n")[0]);
    expect(lines).toHaveLength(golden.rows.length + 1);
    let worst = 0;
    lines.slice(1).forEach((line, row) => {
      const fields = line.split(",");
      const expected = golden.rows[row]!;
      // timestamp (int), node_type (int), ratio (1.0) and the zero core/uncore columns are textually identical
      for (const index of [0, 8, 9, 11, 12]) expect(fields[index]).toBe(expected[index]);
      fields.forEach((field, index) => {
        worst = Math.max(worst, relativeError(Number(field), Number(expected[index])));
      });
    });
    expect(worst).toBeLessThan(1e-9);
  });

  it("--json: the summary as data (rows, columns, valid groups, correlations)", async () => {
    const out = join(folder, "table.csv");
    const result = await extract(COREMARK, "rapl-sysfs", "CounterIRQCombined", ["--out", out, "--json"]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      out: string;
      rowCount: number;
      validFeatureGroups: string[];
      correlations: Array<{ feature: string; correlation: number }>;
    };
    expect(summary).toMatchObject({ out, rowCount: 187 });
    expect(summary.validFeatureGroups).toContain("CounterIRQCombined");
    const instructions = summary.correlations.find((c) => c.feature === "cpu_instructions");
    expect(instructions?.correlation).toBeCloseTo(0.98580313972, 10);
    expect((await readFile(out, "utf8")).split("\n")).toHaveLength(187 + 2);
  });

  it("writes a container-level table with the id column after the timestamp", async () => {
    const out = join(folder, "containers.csv");
    const result = await extract(IDLE, "acpi", "BPFOnly", ["--level", "container", "--out", out]);
    expect(result.code).toBe(0);
    const lines = (await readFile(out, "utf8")).trimEnd().split("\n");
    expect(lines[0]).toBe("timestamp,id,bpf_cpu_time_ms,bpf_page_cache_hit,platform_power,node_type");
    expect(lines).toHaveLength(211 + 1);
  });

  // The CSV is streamed to the file; this digest is of the text the whole-string writer (commit 018a2fe)
  // wrote for the same table, so streaming changed no byte.
  it("streams coremark's container-level table byte-identical to the whole-string writer's", async () => {
    const out = join(folder, "containers.csv");
    const result = await extract(COREMARK, "rapl-sysfs", "CounterOnly", ["--level", "container", "--out", out]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(`wrote ${out}: 4342 rows of 62 containers`);
    const csv = await readFile(out);
    expect(csv.byteLength).toBe(928_402);
    expect(createHash("sha256").update(csv).digest("hex")).toBe(
      "f5f3a82196fee363a98c72140aa53b2dcadaae7a2b3d4c590a38c36354a3b94f",
    );
  });

  it("exits 2 with one line for a missing flag and for an unknown group", async () => {
    const missing = await run(["extract", "--input", IDLE, "--feature-group", "BPFOnly", "--out", join(folder, "x.csv")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("kepler-model extract: --source is required (kepler-model extract --help lists the flags)\n");
    const unknown = await extract(IDLE, "acpi", "Nope", ["--out", join(folder, "x.csv")]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('kepler-model extract: --feature-group: unknown feature group "Nope" (known: ');
    expect(unknown.stderr.split("\n")).toHaveLength(2);
  });
});
