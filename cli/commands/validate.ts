// `kepler-model validate`: what a saved Prometheus response holds (reference CLI `validate`, spec §9.4):
// per query the series, samples and samples > 0, and per feature group whether training can use it.
// Computed in-process with the extractor's domain code.
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { type ResponseValidation, validateResponse } from "../../services/extractor/domain/validate-response.js";
import type { Command } from "../command.js";
import { COMMON_FLAGS } from "../common-flags.js";
import { booleanFlag, inputFileFlag, listFlag, textFlag } from "../flag-readers.js";
import { formatTextTable } from "../text-table.js";
import { writeJson } from "../write-text-file.js";

function renderText(report: ResponseValidation): string {
  const queries = formatTextTable(
    ["query", "source", "series", "series_>0", "samples", "samples_>0", "max"],
    report.queries.map((q) => [
      q.query,
      q.energySource,
      String(q.seriesCount),
      String(q.positiveSeriesCount),
      String(q.sampleCount),
      String(q.positiveSampleCount),
      q.maxValue === null ? "-" : String(q.maxValue),
    ]),
  );
  const groups = formatTextTable(
    ["feature_group", "valid", "series", "samples", "samples_>0", "missing"],
    report.featureGroups.map((g) => [
      g.extra ? `${g.featureGroup} (extra)` : g.featureGroup,
      g.valid ? "yes" : "no",
      String(g.seriesCount),
      String(g.sampleCount),
      String(g.positiveSampleCount),
      g.missingFeatures.length > 0 ? g.missingFeatures.join(",") : g.note === "" ? "-" : `- (${g.note})`,
    ]),
  );
  const { reference, extra } = report.validFeatureGroups;
  return [
    queries,
    groups,
    `valid feature groups: ${reference.join(", ") || "none"}${extra.length > 0 ? ` (extra: ${extra.join(", ")})` : ""}`,
    `energy sources: ${report.energySources.join(", ") || "none"}`,
    "",
  ].join("\n");
}

export const validateCommand: Command = {
  name: "validate",
  summary: "Count series, samples and samples > 0 per query of a saved Prometheus response, and list its valid feature groups.",
  usage: "--input <response.json[.gz]> [--json] [flags]",
  flags: [
    COMMON_FLAGS.recording,
    {
      name: "pod",
      valueName: "text",
      description: "Count only container series whose pod_name contains this (e.g. the benchmark's name).",
    },
    { name: "json", boolean: true, description: "Print the report as JSON instead of tables." },
    COMMON_FLAGS.vm,
    COMMON_FLAGS.thirdPartyMetrics,
  ],
  async run({ flags, stdout, stderr }) {
    const thirdPartyMetrics = listFlag(flags, "third-party-metrics");
    const podNameContains = textFlag(flags, "pod");
    const input = await inputFileFlag(flags, "input");
    const response = await readPrometheusResponseFile(input, input);
    const report = validateResponse(response, { thirdPartyMetrics, useVmMetrics: booleanFlag(flags, "vm"), podNameContains });
    // Nothing to validate is not a report of zeros: say what the file lacks and fail.
    if (report.queries.every((query) => query.sampleCount === 0)) {
      const what = report.queries.length === 0 ? "no metrics" : `${report.queries.length} metrics but no samples`;
      stderr.write(
        `kepler-model validate: ${input} holds ${what}: record a window of Kepler's metrics with \`kepler-model query\`\n`,
      );
      return 1;
    }
    const containerQueries = report.queries.filter((query) => query.query.includes("container"));
    if (podNameContains !== undefined && containerQueries.every((query) => query.seriesCount === 0)) {
      stderr.write(`kepler-model validate: no container series in ${input} has a pod_name containing "${podNameContains}"\n`);
      return 1;
    }
    if (booleanFlag(flags, "json")) writeJson(stdout, report);
    else stdout.write(renderText(report));
    return 0;
  },
};
