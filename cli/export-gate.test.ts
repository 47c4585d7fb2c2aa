// The export gate on a hand-built pipeline zip: the reference's defaults drop MAPE > 100 and MAE > 100,
// keep unknown accuracy, and the model table loses exactly the dropped rows (renumbered).
import { describe, expect, it } from "vitest";
import { createZip, readZip } from "../services/models/index.js";
import { DEFAULT_MAX_MAE, DEFAULT_MAX_MAPE, gateExportedPipeline } from "./export-gate.js";

const model = (name: string, metadata: Record<string, unknown>) =>
  createZip([{ name: "metadata.json", data: Buffer.from(JSON.stringify({ model_name: name, ...metadata })) }]);

const TABLE = [
  ",model_name,model_class,mae,mape,trainer,feature_group",
  "0,A_0,scikit,5.0,150.0,A,BPFOnly",
  "1,B_0,scikit,8.0,12.0,B,BPFOnly",
  "2,C_0,scikit,120.0,30.0,C,BPFOnly",
  "3,D_0,scikit,,,D,BPFOnly",
  "",
].join("\n");

describe("gateExportedPipeline", () => {
  it("applies the reference's soft criterion when asked: MAPE <= 20 or MAE <= 10", () => {
    const archive = createZip([
      { name: "rapl-sysfs/AbsPower/BPFOnly/A_0.zip", data: model("A_0", { mae: 9, mape: 40 }) },
      { name: "rapl-sysfs/AbsPower/BPFOnly/B_0.zip", data: model("B_0", { mae: 30, mape: 15 }) },
      { name: "rapl-sysfs/AbsPower/BPFOnly/C_0.zip", data: model("C_0", { mae: 30, mape: 40 }) },
    ]);
    const options = {
      pipelineName: "p",
      maxMape: DEFAULT_MAX_MAPE,
      maxMae: DEFAULT_MAX_MAE,
      acceptMape: 20,
      acceptMae: 10,
      publisher: "",
      collectTime: "",
      exportTime: "2026-01-02 03:04:05",
    };
    const result = gateExportedPipeline(archive, options);
    expect(result.models.map((m) => [m.modelName, m.droppedBecause])).toEqual([
      ["A_0", undefined],
      ["B_0", undefined],
      ["C_0", "MAPE 40 % > 20 % and MAE 30 W > 10 W (not accepted)"],
    ]);
    expect(result.readme).toContain(
      "- Validity gate: models with MAPE > 100 % or MAE > 100 W are dropped; the others are kept only with MAPE <= 20 % or MAE <= 10 W\n",
    );
    const onlyMape = gateExportedPipeline(archive, { ...options, acceptMae: undefined });
    expect(onlyMape.models.map((m) => m.droppedBecause)).toEqual([
      "MAPE 40 % > 20 % (not accepted)",
      undefined,
      "MAPE 40 % > 20 % (not accepted)",
    ]);
  });

  it("drops by the reference's defaults and keeps models of unknown accuracy", () => {
    const archive = createZip([
      { name: "metadata.json", data: Buffer.from('{"name":"p","workload":"stress-ng"}') },
      { name: "node_type_index.json", data: Buffer.from("{}") },
      { name: "acpi_DynPower_model_metadata.csv", data: Buffer.from(TABLE) },
      { name: "acpi/DynPower/BPFOnly/A_0.zip", data: model("A_0", { mae: 5, mape: 150 }) },
      { name: "acpi/DynPower/BPFOnly/A_0.json", data: Buffer.from("{}") },
      { name: "acpi/DynPower/BPFOnly/B_0.zip", data: model("B_0", { mae: 8, mape: 12 }) },
      { name: "acpi/DynPower/BPFOnly/C_0.zip", data: model("C_0", { mae: 120, mape: 30 }) },
      { name: "acpi/DynPower/BPFOnly/D_0.zip", data: model("D_0", {}) },
    ]);
    const result = gateExportedPipeline(archive, {
      pipelineName: "p",
      maxMape: DEFAULT_MAX_MAPE,
      maxMae: DEFAULT_MAX_MAE,
      publisher: "",
      collectTime: "",
      exportTime: "2026-01-02 03:04:05",
    });
    expect(result.models.map((m) => [m.modelName, m.droppedBecause])).toEqual([
      ["A_0", "MAPE 150 % > 100 %"],
      ["B_0", undefined],
      ["C_0", "MAE 120 W > 100 W"],
      ["D_0", undefined],
    ]);
    const entries = new Map(readZip(result.archive).map((e) => [e.name, Buffer.from(e.data).toString("utf8")]));
    expect([...entries.keys()].filter((name) => name.startsWith("acpi/"))).toEqual([
      "acpi/DynPower/BPFOnly/B_0.zip",
      "acpi/DynPower/BPFOnly/D_0.zip",
    ]);
    expect(entries.get("acpi_DynPower_model_metadata.csv")).toBe(
      [
        ",model_name,model_class,mae,mape,trainer,feature_group",
        "0,B_0,scikit,8.0,12.0,B,BPFOnly",
        "1,D_0,scikit,,,D,BPFOnly",
        "",
      ].join("\n"),
    );
    expect(JSON.parse(entries.get("metadata.json")!)).toEqual({
      name: "p",
      workload: "stress-ng",
      publisher: "",
      collect_time: "",
      export_time: "2026-01-02 03:04:05",
    });
    expect(result.readme).toContain(
      "- Publisher: unknown\n- Collected: unknown\n- Exported: 2026-01-02 03:04:05\n- Workload: stress-ng\n",
    );
    expect(result.readme).toContain("Available node types: 0\n\nNo machine spec was indexed.\n");
    expect(result.readme).toContain("| acpi | DynPower | BPFOnly | D_0 | unknown | unknown |");
    expect(entries.get("README.md")).toBe(result.readme);
  });
});
