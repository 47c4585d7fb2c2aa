// `kepler-model extract`: a saved Prometheus response -> the reference's extract CSV (reference CLI
// `extract`, spec §3.6), computed in-process with the extractor's domain code. The CSV is streamed to
// the file as it is formatted.
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { formatPythonFloat, tableCsvChunks } from "../../services/domain/table-csv.js";
import type { Command } from "../command.js";
import {
  assertOutputFolder,
  booleanFlag,
  choiceFlag,
  energySourceFlag,
  featureGroupFlag,
  inputFileFlag,
  integerFlag,
  listFlag,
  requiredFlag,
} from "../flag-readers.js";
import { writeJson, writeTextFile } from "../write-text-file.js";

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
    { name: "json", boolean: true, description: "Print the summary (rows, columns, valid groups, correlations) as JSON." },
  ],
  async run({ flags, stdout }) {
    const energySource = energySourceFlag(flags, "source", true);
    const featureGroup = featureGroupFlag(flags, "feature-group", true);
    const level = choiceFlag(flags, "level", ["node", "container"] as const, "node");
    const extractor = choiceFlag(flags, "extractor", ["default", "smooth"] as const, "default");
    const nodeType = integerFlag(flags, "node-type");
    const thirdPartyMetrics = listFlag(flags, "third-party-metrics");
    const out = await assertOutputFolder(requiredFlag(flags, "out"), "out");
    const input = await inputFileFlag(flags, "input");

    const response = await readPrometheusResponseFile(input, input);
    const result = extract(response, {
      energySource,
      featureGroup,
      level,
      extractor,
      nodeType,
      useVmMetrics: booleanFlag(flags, "vm"),
      thirdPartyMetrics,
    });
    await writeTextFile(out, tableCsvChunks(result.table));
    const { table } = result;
    if (booleanFlag(flags, "json")) {
      writeJson(stdout, {
        out,
        rowCount: table.rowCount,
        containerCount: level === "container" ? result.containerCount : undefined,
        columnNames: table.columnNames,
        validFeatureGroups: result.validFeatureGroups,
        validHistoricalFeatureGroups: result.validHistoricalFeatureGroups,
        correlationPowerColumn: result.correlationPowerColumn,
        correlations: result.correlations,
        notices: result.notices,
      });
      return 0;
    }
    const lines = [
      `wrote ${out}: ${table.rowCount} rows${level === "container" ? ` of ${result.containerCount} containers` : ""}, columns ${table.columnNames.join(", ")}`,
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
