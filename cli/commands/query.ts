// `kepler-model query`: save a window of a live Prometheus as the reference's saved-response JSON
// (reference CLI `query`, spec §1.3): every metric starting with the prefix plus third-party metrics.
import { readSavedResponse } from "../../services/extractor/domain/read-prometheus-window.js";
import { KEPLER_METRIC_PREFIX } from "../../services/extractor/domain/metric-names.js";
import { discoverMachineSpec } from "../../services/node-types/discover-machine-spec.js";
import { DEFAULT_STEP_SECONDS, type SavedResponse } from "../../services/prometheus/query-window.js";
import { machineSpecPathBeside, writeMachineSpecFile } from "../machine-spec-file.js";
import { writeQueryCsvs } from "../query-csv.js";
import { type Command, UsageError } from "../command.js";
import { stepFlag, windowFlags } from "../common-flags.js";
import { assertOutputFolder, listFlag, numberFlag, requiredFlag, textFlag, timeFlag } from "../flag-readers.js";
import { writeTextFile } from "../write-text-file.js";

/** The reference's default window length when no start/end is given (PROM_QUERY_INTERVAL). */
const DEFAULT_INTERVAL_SECONDS = 300;

/** The saved response as JSON text (what JSON.stringify gives), one piece per series. */
function* savedResponsePieces(saved: SavedResponse): Generator<string> {
  let separator = "{";
  for (const [metric, series] of Object.entries(saved)) {
    yield `${separator}${JSON.stringify(metric)}:[${series.map((s) => JSON.stringify(s)).join(",")}]`;
    separator = ",";
  }
  yield separator === "{" ? "{}" : "}";
}

export const queryCommand: Command = {
  name: "query",
  summary: "Save a window of Kepler metrics from a live Prometheus as the reference's response JSON.",
  usage:
    "--prometheus <url> --out <response.json> [--start <time> --end <time> | --interval <s>] [--to-csv <dir>] [--id <machine id>] [flags]",
  flags: [
    {
      name: "prometheus",
      aliases: ["server"],
      valueName: "url",
      description: "Prometheus base URL, e.g. http://127.0.0.1:9090.",
    },
    { name: "out", valueName: "file", description: "Where to write the saved-response JSON." },
    ...windowFlags({ start: "with --end", end: "with --start" }),
    {
      name: "interval",
      valueName: "s",
      description: `Without --start/--end: the last this many seconds (default ${DEFAULT_INTERVAL_SECONDS}).`,
    },
    stepFlag(`${DEFAULT_STEP_SECONDS}`),
    { name: "metric-prefix", valueName: "prefix", description: `Metric names to discover (default ${KEPLER_METRIC_PREFIX}).` },
    { name: "third-party-metrics", valueName: "a,b", description: "Extra metric names to query verbatim." },
    {
      name: "to-csv",
      valueName: "dir",
      description: "Also write one CSV per metric to this folder (<metric>.csv: index, labels, timestamp, value).",
    },
    {
      name: "id",
      valueName: "machine id",
      description: "Record this node's machine spec as machine_spec/<id>.json beside --out (for pipeline run --machine-id).",
    },
    { name: "timeout-ms", valueName: "ms", description: "Timeout of each Prometheus request (default 60000)." },
  ],
  async run({ flags, stdout }) {
    const server = requiredFlag(flags, "prometheus");
    const out = await assertOutputFolder(requiredFlag(flags, "out"), "out");
    const csvDir = textFlag(flags, "to-csv");
    const machineId = textFlag(flags, "id");
    if (machineId !== undefined && !/^[A-Za-z0-9._-]+$/.test(machineId))
      throw new UsageError(`--id may hold letters, digits, ".", "_" and "-" only, got "${machineId}"`);
    const start = timeFlag(flags, "start");
    const end = timeFlag(flags, "end");
    if ((start === undefined) !== (end === undefined)) throw new UsageError("--start and --end go together");
    const interval = numberFlag(flags, "interval", { positive: true }) ?? DEFAULT_INTERVAL_SECONDS;
    const endSeconds = end ?? Math.floor(Date.now() / 1000);
    const startSeconds = start ?? endSeconds - interval;
    const saved = await readSavedResponse({
      baseUrl: server,
      timeoutMs: numberFlag(flags, "timeout-ms", { positive: true }) ?? 60_000,
      startSeconds,
      endSeconds,
      stepSeconds: numberFlag(flags, "step", { positive: true }) ?? DEFAULT_STEP_SECONDS,
      metricPrefix: textFlag(flags, "metric-prefix") ?? KEPLER_METRIC_PREFIX,
      thirdPartyMetrics: listFlag(flags, "third-party-metrics"),
    });
    if (Object.keys(saved).length === 0)
      throw new Error(
        `no metric named ${textFlag(flags, "metric-prefix") ?? KEPLER_METRIC_PREFIX}* has data at ${server} between ${startSeconds} and ${endSeconds}: nothing written`,
      );
    let characters = 0;
    await writeTextFile(
      out,
      (function* () {
        for (const piece of savedResponsePieces(saved)) {
          characters += piece.length;
          yield piece;
        }
      })(),
    );
    const samples = Object.values(saved).reduce((total, series) => total + series.reduce((n, s) => n + s.values.length, 0), 0);
    stdout.write(
      `wrote ${out}: ${Object.keys(saved).length} metrics, ${samples} samples, ${characters} bytes (${startSeconds} .. ${endSeconds})\n`,
    );
    if (csvDir !== undefined) stdout.write(`wrote ${await writeQueryCsvs(csvDir, saved)} CSV files to ${csvDir}\n`);
    if (machineId !== undefined) {
      const path = machineSpecPathBeside(out, machineId);
      const spec = await discoverMachineSpec();
      await writeMachineSpecFile(path, spec);
      stdout.write(`wrote ${path}: ${spec.processor || "unknown processor"}, ${spec.cores} cores, ${spec.memory} GiB\n`);
    }
    return 0;
  },
};
