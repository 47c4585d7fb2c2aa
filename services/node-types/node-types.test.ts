// Domain tests of node-type matching on the reference's own examples (spec §6.5; kepler-model-server
// tests/model_select_test.py and the ec2-0.7.11 node_type_index.json copied into test/fixtures/registry).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  attrHasValue,
  discoverMachineSpec,
  emptyNodeSpec,
  formatProcessor,
  jaccardSimilarity,
  NodeTypeIndex,
  nodeSpecFrom,
  specSimilarity,
} from "./index.js";

const ec2 = NodeTypeIndex.fromJson(
  JSON.parse(readFileSync(new URL("../../test/fixtures/registry/ec2-fixture/node_type_index.json", import.meta.url), "utf8")),
);
const TYPE0 = { processor: "intel_xeon_platinum_8259cl", cores: 96, chips: 2, memory: 377, frequency: 3500 };

describe("similarity", () => {
  it("computes the reference's character-set Jaccard (halved)", () => {
    expect(jaccardSimilarity("", "")).toBe(1);
    expect(jaccardSimilarity("", "some")).toBe(0);
    expect(jaccardSimilarity("intel_xeon_platinum_8259cl", "intel_xeon_platinum_8259cl")).toBe(1);
    expect(jaccardSimilarity("abcd", "abcdefgh")).toBe(0.25);
  });

  it("gives 1 for the same node type and [0, 1] for the others", () => {
    for (const a of ec2.list()) {
      for (const b of ec2.list()) {
        const s = specSimilarity(a.spec, b.spec);
        if (a.nodeType === b.nodeType) expect(s).toBe(1);
        else expect(s >= 0 && s <= 1).toBe(true);
      }
    }
  });

  it("pins attr_has_value as the reference's test does", () => {
    for (const value of ["", null, "0", 0, "-1", -1]) {
      expect(attrHasValue({ ...emptyNodeSpec(), cores: value as never }, "cores")).toBe(false);
    }
    for (const value of ["1", 1]) expect(attrHasValue({ ...emptyNodeSpec(), cores: value as never }, "cores")).toBe(true);
    expect(attrHasValue({ ...emptyNodeSpec(), processor: "some" }, "processor")).toBe(true);
  });
});

describe("NodeTypeIndex.match (get_node_type)", () => {
  it("matches each complete spec to itself with no uncertainty", () => {
    for (const entry of ec2.list())
      expect(ec2.match(entry.spec)).toEqual({ nodeType: entry.nodeType, uncertainty: 0, looseness: 0, kind: "exact" });
  });

  it("{cores: 96} -> node type 0 with uncertainty 0.75", () => {
    expect(ec2.match(nodeSpecFrom({ cores: 96 }))).toEqual({ nodeType: 0, uncertainty: 0.75, looseness: 0, kind: "cover" });
  });

  it("{processor 8259cl, memory 755} -> node type 3 with uncertainty 0", () => {
    expect(ec2.match(nodeSpecFrom({ processor: "intel_xeon_platinum_8259cl", memory: 755 }))).toEqual({
      nodeType: 3,
      uncertainty: 0,
      looseness: 0,
      kind: "cover",
    });
  });

  it("the empty spec is covered by every type: node type 0, uncertainty 1 - (5/6)/5", () => {
    const match = ec2.match(emptyNodeSpec());
    expect(match.nodeType).toBe(0);
    expect(match.looseness).toBe(0);
    expect(match.uncertainty).toBeCloseTo(1 - 5 / 6 / 5, 12);
  });

  it("an uncovered processor: -1 without loose search, the most similar type with it", () => {
    const spec = { ...TYPE0, processor: "intel_xeon_platinum_8259" };
    expect(ec2.match(nodeSpecFrom(spec))).toEqual({ nodeType: -1, uncertainty: -1, looseness: -1, kind: "none" });
    const loose = ec2.match(nodeSpecFrom(spec), true);
    expect(loose.nodeType).toBe(0);
    expect(loose.uncertainty).toBe(0);
    expect(loose.kind).toBe("similarity");
    // 1 - (16/17 * 0.5 * 5/8 + 3/8): processor character sets share 16 of 17 characters.
    expect(loose.looseness).toBeCloseTo(1 - ((16 / 17) * 0.5 * 5) / 8 - 3 / 8, 12);
    expect(loose.looseness.toFixed(3)).toBe("0.331");
  });

  it("indexes training machines: the covering type, or max + 1", () => {
    const index = NodeTypeIndex.fromJson(ec2.toJson());
    expect(index.indexMachine("m5.metal-2", nodeSpecFrom(TYPE0))).toEqual({ nodeType: 0, created: false });
    expect(index.get(0)?.members).toEqual(["m5.metal-ami-0e4d0bb9670ea8db0", "m5.metal-2"]);
    expect(index.indexMachine("new", nodeSpecFrom({ ...TYPE0, cores: 8 }))).toEqual({ nodeType: 6, created: true });
    expect(() => index.indexMachine("partial", nodeSpecFrom({ cores: 8 }))).toThrow(
      "spec: a training machine needs a complete spec; missing processor, chips, memory, frequency",
    );
    expect(new NodeTypeIndex().indexMachine("first", nodeSpecFrom(TYPE0))).toEqual({ nodeType: 0, created: true });
  });
});

describe("machine spec discovery", () => {
  const root = mkdtemp(join(tmpdir(), "machine-"));
  afterAll(async () => rm(await root, { recursive: true, force: true }));

  it("normalises processor names as format_processor does", () => {
    expect(formatProcessor("Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz")).toBe("intel_xeon_platinum_8259cl");
    expect(formatProcessor("Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz")).toBe("intel_xeon_e5_2686v4");
    expect(formatProcessor("AMD EPYC 7R13 Processor")).toBe("amd_epyc_7r13");
    expect(formatProcessor("-")).toBe("");
  });

  it("reads cores, chips, memory, frequency and vendor from /proc and /sys", async () => {
    const dir = await root;
    const cpu = (n: number, physical: number, core: number) =>
      `processor\t: ${n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz\nphysical id\t: ${physical}\ncore id\t\t: ${core}\ncpu MHz\t\t: 2499.998\n`;
    await mkdir(join(dir, "proc"), { recursive: true });
    await writeFile(join(dir, "proc/cpuinfo"), [cpu(0, 0, 0), cpu(1, 0, 0), cpu(2, 1, 0), cpu(3, 1, 0)].join("\n"));
    await writeFile(join(dir, "proc/meminfo"), "MemTotal:       395313152 kB\nMemFree:  1 kB\n");
    for (const policy of ["policy0", "policy1"]) {
      await mkdir(join(dir, "sys/devices/system/cpu/cpufreq", policy), { recursive: true });
      await writeFile(join(dir, "sys/devices/system/cpu/cpufreq", policy, "cpuinfo_max_freq"), "3500000\n");
      await writeFile(join(dir, "sys/devices/system/cpu/cpufreq", policy, "scaling_cur_freq"), "2500000\n");
    }
    await mkdir(join(dir, "sys/class/dmi/id"), { recursive: true });
    await writeFile(join(dir, "sys/class/dmi/id/sys_vendor"), "Amazon EC2\n");
    expect(await discoverMachineSpec({ procRoot: join(dir, "proc"), sysRoot: join(dir, "sys") })).toEqual({
      processor: "intel_xeon_platinum_8259cl",
      vendor: "amazon",
      cores: 4,
      chips: 2,
      memory: 377,
      frequency: 3500,
      threadsPerCore: 2,
    });
  });

  it("falls back to cpuinfo's current MHz without cpufreq (VMs)", async () => {
    const dir = await root;
    expect((await discoverMachineSpec({ procRoot: join(dir, "proc"), sysRoot: join(dir, "no-sys") })).frequency).toBe(2500);
  });
});
