// `kepler-model extract`: a saved Prometheus response -> the reference's extract CSV (reference CLI
// `extract`, spec §3.6), computed in-process with the extractor's domain code. The CSV is streamed to
// the file as it is formatted.
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { formatPythonFloat, tableCsvChunks } from "../../services/domain/table-csv.js";
import type { Command } from "../command.js";
import { COMMON_FLAGS, extractSelection, withDefault } from "../common-flags.js";
import { assertOutputFolder, booleanFlag, choiceFlag, inputFileFlag, listFlag, requiredFlag } from "../flag-readers.js";
import { writeJson, writeTextFile } from "../write-text-file.js";

export const extractCommand: Command = {
  name: "extract",
  summary: "Turn a saved Prometheus response into the reference's training table CSV (node or container level).",
  usage: "--input <response.json[.gz]> --source <energy source> --feature-group <group> --out <table.csv> [flags]",
  flags: [
    COMMON_FLAGS.recording,
    COMMON_FLAGS.energySource,
    COMMON_FLAGS.featureGroup,
    { name: "level", valueName: "node|container", description: "node (AbsPower table, default) or container (isolator input)." },
    withDefault(COMMON_FLAGS.extractor, "default"),
    { name: "out", valueName: "file", description: "Where to write the CSV (timestamp first, the reference's column names)." },
    COMMON_FLAGS.nodeType,
    COMMON_FLAGS.vm,
    COMMON_FLAGS.thirdPartyMetrics,
    { name: "json", boolean: true, description: "Print the summary (rows, columns, valid groups, correlations) as JSON." },
  ],
  async run({ flags, stdout }) {
    const selection = extractSelection(flags);
    const level = choiceFlag(flags, "level", ["node", "container"] as const, "node");
    const extractor = choiceFlag(flags, "extractor", ["default", "smooth"] as const, "default");
    const thirdPartyMetrics = listFlag(flags, "third-party-metrics");
    const out = await assertOutputFolder(requiredFlag(flags, "out"), "out");
    const input = await inputFileFlag(flags, "input");

    const response = await readPrometheusResponseFile(input, input);
    const result = extract(response, { ...selection, level, extractor, thirdPartyMetrics });
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
