// `kepler-model extract`: a saved Prometheus response -> the reference's extract CSV (reference CLI
// `extract`, spec §3.6), computed in-process with the extractor's domain code.
import { readFile, writeFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { assertEnergySource } from "../../services/domain/energy-sources.js";
import { assertFeatureGroup } from "../../services/domain/feature-groups.js";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { formatPythonFloat, tableToCsv } from "../../services/domain/table-csv.js";
import { type Command, UsageError } from "../command.js";

function required(flags: Readonly<Record<string, string | boolean | undefined>>, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function oneOf<T extends string>(
  flags: Readonly<Record<string, string | boolean | undefined>>,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = flags[name];
  if (value === undefined) return fallback;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, got ${String(value)}`);
}

export const extractCommand: Command = {
  name: "extract",
  summary: "Turn a saved Prometheus response into the reference's training table CSV (node or container level).",
  usage: "--input <response.json[.gz]> --source <energy source> --feature-group <group> --out <table.csv> [flags]",
  flags: [
    {
      name: "input",
      valueName: "file",
      description: "Saved Prometheus response JSON (`kepler-model query` format); .gz is read too.",
    },
    {
      name: "source",
      valueName: "src",
      description: "Energy source: rapl-sysfs, rapl-msr, acpi, hmc, redfish (rapl, intel_rapl mean rapl-sysfs).",
    },
    {
      name: "feature-group",
      valueName: "fg",
      description: "Feature group, e.g. CounterOnly, BPFOnly, Basic; also CgroupOnly, KubeletOnly.",
    },
    { name: "level", valueName: "node|container", description: "node (AbsPower table, default) or container (isolator input)." },
    {
      name: "extractor",
      valueName: "default|smooth",
      description: "The reference's default extractor or the smooth one (rolling mean of 30 rows).",
    },
    { name: "out", valueName: "file", description: "Where to write the CSV (timestamp first, the reference's column names)." },
    { name: "node-type", valueName: "n", description: "Write this node type in the node_type column instead of the data's." },
    { name: "vm", boolean: true, description: "Read VM metrics (kepler_process_*, kepler_vm_*, job=vm)." },
    {
      name: "third-party-metrics",
      valueName: "a,b",
      description: "Comma-separated metric names used verbatim as ThirdParty features.",
    },
  ],
  async run({ flags, stdout }) {
    const input = required(flags, "input");
    const out = required(flags, "out");
    const energySource = assertEnergySource(required(flags, "source"), "--source");
    const featureGroup = assertFeatureGroup(required(flags, "feature-group"), "--feature-group");
    const level = oneOf(flags, "level", ["node", "container"] as const, "node");
    const extractor = oneOf(flags, "extractor", ["default", "smooth"] as const, "default");
    const nodeTypeFlag = flags["node-type"];
    const nodeType = typeof nodeTypeFlag === "string" ? Number(nodeTypeFlag) : undefined;
    if (nodeType !== undefined && !Number.isInteger(nodeType))
      throw new UsageError(`--node-type must be an integer, got ${nodeTypeFlag}`);
    const thirdParty =
      typeof flags["third-party-metrics"] === "string"
        ? flags["third-party-metrics"].split(",").filter((name) => name !== "")
        : [];

    const bytes = await readFile(input);
    const text = (input.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
    const response = parsePrometheusResponse(text, input);
    const result = extract(response, {
      energySource,
      featureGroup,
      level,
      extractor,
      nodeType,
      useVmMetrics: flags.vm === true,
      thirdPartyMetrics: thirdParty,
    });
    await writeFile(out, tableToCsv(result.table));
    const lines = [
      `wrote ${out}: ${result.table.rowCount} rows${level === "container" ? ` of ${result.containerCount} containers` : ""}, columns ${result.table.columnNames.join(", ")}`,
      `valid feature groups: ${result.validFeatureGroups.join(", ") || "none"}${result.validHistoricalFeatureGroups.length > 0 ? ` (also: ${result.validHistoricalFeatureGroups.join(", ")})` : ""}`,
      `correlation with ${result.correlationPowerColumn}:`,
      ...result.correlations.map(({ feature, correlation }) => `  ${feature.padEnd(28)} ${formatPythonFloat(correlation)}`),
      ...result.notices.map((notice) => `note: ${notice}`),
      "",
    ];
    stdout.write(lines.join("\n"));
    return 0;
  },
};
