// `kepler-model query`: save a window of a live Prometheus as the reference's saved-response JSON
// (reference CLI `query`, spec §1.3): every metric starting with the prefix plus third-party metrics.
import { writeFile } from "node:fs/promises";
import { readSavedResponse } from "../../services/extractor/domain/read-prometheus-window.js";
import { KEPLER_METRIC_PREFIX } from "../../services/extractor/domain/metric-names.js";
import { discoverMachineSpec } from "../../services/node-types/discover-machine-spec.js";
import { DEFAULT_STEP_SECONDS } from "../../services/prometheus/query-window.js";
import { machineSpecPathBeside, writeMachineSpecFile } from "../machine-spec-file.js";
import { writeQueryCsvs } from "../query-csv.js";
import { type Command, UsageError } from "../command.js";

/** The reference's default window length when no start/end is given (PROM_QUERY_INTERVAL). */
const DEFAULT_INTERVAL_SECONDS = 300;

function text(flags: Readonly<Record<string, string | boolean | undefined>>, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} needs a value`);
  return value;
}

/** Unix seconds or an ISO 8601 date-time (e.g. 2023-09-22T05:43:45Z). */
function parseTime(value: string, flag: string): number {
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Date.parse(value) / 1000;
  if (!Number.isFinite(seconds)) throw new UsageError(`--${flag}: expected Unix seconds or an ISO 8601 time, got "${value}"`);
  return seconds;
}

function positive(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!(number > 0)) throw new UsageError(`--${flag} must be a positive number, got "${value}"`);
  return number;
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
    { name: "start", valueName: "time", description: "Window start: Unix seconds or ISO 8601 (with --end)." },
    { name: "end", valueName: "time", description: "Window end: Unix seconds or ISO 8601 (with --start)." },
    {
      name: "interval",
      valueName: "s",
      description: `Without --start/--end: the last this many seconds (default ${DEFAULT_INTERVAL_SECONDS}).`,
    },
    { name: "step", valueName: "s", description: `Query resolution in seconds (default ${DEFAULT_STEP_SECONDS}).` },
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
    const server = text(flags, "prometheus");
    const out = text(flags, "out");
    if (server === undefined) throw new UsageError("--prometheus is required");
    if (out === undefined) throw new UsageError("--out is required");
    const csvDir = text(flags, "to-csv");
    const machineId = text(flags, "id");
    if (machineId !== undefined && !/^[A-Za-z0-9._-]+$/.test(machineId))
      throw new UsageError(`--id may hold letters, digits, ".", "_" and "-" only, got "${machineId}"`);
    const start = text(flags, "start");
    const end = text(flags, "end");
    if ((start === undefined) !== (end === undefined)) throw new UsageError("--start and --end go together");
    let startSeconds: number;
    let endSeconds: number;
    if (start !== undefined && end !== undefined) {
      startSeconds = parseTime(start, "start");
      endSeconds = parseTime(end, "end");
    } else {
      endSeconds = Math.floor(Date.now() / 1000);
      startSeconds = endSeconds - positive(text(flags, "interval"), "interval", DEFAULT_INTERVAL_SECONDS);
    }
    const saved = await readSavedResponse({
      baseUrl: server,
      timeoutMs: positive(text(flags, "timeout-ms"), "timeout-ms", 60_000),
      startSeconds,
      endSeconds,
      stepSeconds: positive(text(flags, "step"), "step", DEFAULT_STEP_SECONDS),
      metricPrefix: text(flags, "metric-prefix") ?? KEPLER_METRIC_PREFIX,
      thirdPartyMetrics: (text(flags, "third-party-metrics") ?? "").split(",").filter((name) => name !== ""),
    });
    const json = JSON.stringify(saved);
    await writeFile(out, json);
    const samples = Object.values(saved).reduce((total, series) => total + series.reduce((n, s) => n + s.values.length, 0), 0);
    stdout.write(
      `wrote ${out}: ${Object.keys(saved).length} metrics, ${samples} samples, ${json.length} bytes (${startSeconds} .. ${endSeconds})\n`,
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
