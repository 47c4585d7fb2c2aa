// `kepler-model pipeline run|stop|list`: runs a pipeline on the pipeline service (reference `kepler-model
// train` and the offline trainer, §9.1, §9.4): a saved Prometheus response streamed inline, or a live
// Prometheus window; `--online` repeats it on an interval. Progress goes to stderr (a bar on a terminal,
// plain lines otherwise), the per-model results to stdout.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { ClientError, Status } from "nice-grpc";
import type { OnlinePipelineStatus, RunPipelineRequest } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { type TrainerResult, TrainOutcome } from "../../services/generated/kepler/model/v1/trainer_service.js";
import {
  ExtractorKind,
  IsolatorKind,
  type MachineSpec,
  OutputType,
  type PrometheusWindow,
} from "../../services/generated/kepler/model/v1/types.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { CHUNK_BYTES } from "../../services/kit/transport/message-limits.js";
import { peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { type Command, UsageError } from "../command.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { fileExists, machineSpecPathBeside } from "../machine-spec-file.js";
import { progressPrinter } from "../progress.js";
import { formatTextTable } from "../text-table.js";

type Flags = Readonly<Record<string, string | boolean | undefined>>;
type Pipeline = ReturnType<typeof createPipelineClient>["client"];

const ISOLATORS: Record<string, IsolatorKind> = {
  none: IsolatorKind.ISOLATOR_KIND_NONE,
  min: IsolatorKind.ISOLATOR_KIND_MIN,
  profile: IsolatorKind.ISOLATOR_KIND_PROFILE,
  trainer: IsolatorKind.ISOLATOR_KIND_TRAINER,
};

const EXTRACTORS: Record<string, ExtractorKind> = {
  default: ExtractorKind.EXTRACTOR_KIND_DEFAULT,
  smooth: ExtractorKind.EXTRACTOR_KIND_SMOOTH,
};

const text = (flags: Flags, name: string): string => (typeof flags[name] === "string" ? (flags[name] as string) : "");
const list = (flags: Flags, name: string): string[] =>
  text(flags, name)
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

function numberFlag(flags: Flags, name: string): number | undefined {
  if (flags[name] === undefined) return undefined;
  const value = Number(flags[name]);
  if (!Number.isFinite(value)) throw new UsageError(`--${name} must be a number, got "${String(flags[name])}"`);
  return value;
}

/** Unix seconds, or an ISO 8601 date. */
function timeFlag(flags: Flags, name: string): number {
  const value = text(flags, name);
  if (value === "") throw new UsageError(`--${name} is required with --prometheus`);
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Date.parse(value) / 1000;
  if (!Number.isFinite(seconds)) throw new UsageError(`--${name} must be Unix seconds or an ISO 8601 date, got "${value}"`);
  return seconds;
}

async function readResponse(path: string): Promise<Buffer> {
  const bytes = await readFile(path);
  return path.endsWith(".gz") ? gunzipSync(bytes) : bytes;
}

/** A machine spec file in the reference's spec.json shape: {processor, cores, chips, memory, frequency}. */
async function readMachineSpec(path: string): Promise<MachineSpec> {
  const spec = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  const num = (key: string) => (typeof spec[key] === "number" ? (spec[key] as number) : 0);
  return {
    processor: typeof spec.processor === "string" ? spec.processor : "",
    cores: num("cores"),
    chips: num("chips"),
    memoryGib: num("memory"),
    frequencyMhz: num("frequency"),
    vendor: typeof spec.vendor === "string" ? spec.vendor : "",
    threadsPerCore: num("threads_per_core"),
  };
}

// `query --id` leaves machine_spec/<id>.json beside the recording; use it when no spec is given.
async function specBesideInput(flags: Flags): Promise<string> {
  if (text(flags, "input") === "" || text(flags, "machine-id") === "") return "";
  const path = machineSpecPathBeside(text(flags, "input"), text(flags, "machine-id"));
  return (await fileExists(path)) ? path : "";
}

async function runOptions(flags: Flags): Promise<RunPipelineOptions> {
  const name = text(flags, "pipeline");
  if (name === "") throw new UsageError("--pipeline is required");
  // Default: profile where one exists for the node type (--idle or stored in the pipeline), else min.
  const isolator = text(flags, "isolator") || "profile";
  if (!(isolator in ISOLATORS))
    throw new UsageError(`--isolator must be one of ${Object.keys(ISOLATORS).join(", ")}, got "${isolator}"`);
  const extractor = text(flags, "extractor") || "default";
  if (!(extractor in EXTRACTORS))
    throw new UsageError(`--extractor must be one of ${Object.keys(EXTRACTORS).join(", ")}, got "${extractor}"`);
  const given = flags["abs-trainers"] !== undefined || flags["dyn-trainers"] !== undefined;
  const all = listTrainers().map((t) => t.name);
  const window: PrometheusWindow | undefined =
    text(flags, "prometheus") === ""
      ? undefined
      : {
          baseUrl: text(flags, "prometheus"),
          startTimeSeconds: flags.online === true ? 0 : timeFlag(flags, "start"),
          endTimeSeconds: flags.online === true ? 0 : timeFlag(flags, "end"),
          stepSeconds: numberFlag(flags, "step") ?? 3,
          thirdPartyMetricNames: list(flags, "third-party-metrics"),
          metricPrefix: "",
        };
  const machineSpecPath = text(flags, "machine-spec") || (await specBesideInput(flags));
  const machineSpec = machineSpecPath === "" ? undefined : await readMachineSpec(machineSpecPath);
  if (machineSpec !== undefined && text(flags, "machine-id") === "") throw new UsageError("--machine-spec needs --machine-id");
  return RunPipelineOptions.fromPartial({
    pipelineName: name,
    energySources: list(flags, "source"),
    featureGroups: list(flags, "feature-group"),
    extractor: EXTRACTORS[extractor],
    isolator: ISOLATORS[isolator],
    targetHints: list(flags, "target-hints"),
    backgroundHints: list(flags, "bg-hints"),
    absPipelineName: text(flags, "abs-pipeline-name"),
    absTrainerNames: given ? list(flags, "abs-trainers") : all,
    dynTrainerNames: given ? list(flags, "dyn-trainers") : all,
    window,
    machineSpec,
    machineId: text(flags, "machine-id"),
    nodeType: numberFlag(flags, "node-type"),
    seed: numberFlag(flags, "seed"),
    useVmMetrics: flags.vm === true,
    thirdPartyMetricNames: list(flags, "third-party-metrics"),
  });
}

function resultRow(r: TrainerResult): string[] {
  const ok = r.outcome === TrainOutcome.TRAIN_OUTCOME_SUCCEEDED;
  return [
    r.energySource,
    r.outputType === OutputType.OUTPUT_TYPE_DYN_POWER ? "DynPower" : "AbsPower",
    r.featureGroup,
    r.modelName || r.trainerName,
    ok ? r.maeWatts.toFixed(2) : "-",
    ok ? "published" : `failed: ${r.failureReason}`,
  ];
}

function statusLine(s: OnlinePipelineStatus): string {
  const last = s.lastRunTimeSeconds > 0 ? new Date(s.lastRunTimeSeconds * 1000).toISOString() : "never";
  return `${s.pipelineName}: ${s.running ? "running" : "stopped"}, every ${s.intervalSeconds} s, ${s.runCount} training runs, ${s.skippedRunCount} skipped (no new data), last run ${last}${s.lastError === "" ? "" : `, last error: ${s.lastError}`}\n`;
}

async function run(pipeline: Pipeline, flags: Flags, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }) {
  const options = await runOptions(flags);
  const input = text(flags, "input");
  if (options.window === undefined && input === "") throw new UsageError("give --input <response.json> or --prometheus <url>");
  if (options.window !== undefined && input !== "") throw new UsageError("give --input or --prometheus, not both");
  if (flags.online === true) {
    if (options.window === undefined) throw new UsageError("--online reads a live Prometheus: give --prometheus <url>");
    const interval = numberFlag(flags, "interval") ?? 300;
    const { status } = await pipeline.startOnlinePipeline({
      options,
      intervalSeconds: interval,
      lookbackSeconds: numberFlag(flags, "lookback") ?? 0,
    });
    io.stdout.write(`started online pipeline ${statusLine(status!)}`);
    return 0;
  }
  const workload = input === "" ? undefined : await readResponse(input);
  const idle = text(flags, "idle") === "" ? undefined : await readResponse(text(flags, "idle"));
  async function* requests(): AsyncGenerator<RunPipelineRequest> {
    yield { content: { $case: "options", value: options } };
    for (let start = 0; workload !== undefined && start < workload.byteLength; start += CHUNK_BYTES)
      yield { content: { $case: "responseChunk", value: workload.subarray(start, start + CHUNK_BYTES) } };
    for (let start = 0; idle !== undefined && start < idle.byteLength; start += CHUNK_BYTES)
      yield { content: { $case: "idleResponseChunk", value: idle.subarray(start, start + CHUNK_BYTES) } };
  }
  const progress = progressPrinter(io.stderr);
  const rows: string[][] = [];
  let succeeded = 0;
  try {
    for await (const response of pipeline.runPipeline(requests())) {
      const content = response.content;
      if (content?.$case === "progress") progress.show(content.value);
      else if (content?.$case === "result") rows.push(resultRow(content.value));
      else if (content?.$case === "summary") {
        progress.end();
        const s = content.value;
        succeeded = s.succeededCount;
        io.stdout.write(formatTextTable(["source", "output", "feature_group", "model", "mae_w", "status"], rows));
        io.stdout.write(`\npipeline ${s.pipelineName}: ${s.succeededCount} models published, ${s.failedCount} failed`);
        io.stdout.write(s.metadataJson === "" ? "\n" : "; metadata.json written\n");
        for (const notice of s.notices) io.stdout.write(`note: ${notice}\n`);
      }
    }
  } finally {
    progress.end();
  }
  return succeeded > 0 ? 0 : 1;
}

export const pipelineCommand: Command = {
  name: "pipeline",
  summary: "Run a training pipeline on the pipeline service (extract, isolate, train, publish); stop or list online ones.",
  usage:
    "run --pipeline <name> (--input <response.json[.gz]> | --prometheus <url> --start <t> --end <t> [--step 3]) [flags] | stop --pipeline <name> | list",
  flags: [
    { name: "pipeline", aliases: ["name"], valueName: "name", description: "Pipeline name, e.g. std_v0.7.11." },
    { name: "input", valueName: "file", description: "Saved Prometheus response (`kepler-model query`); .gz is read too." },
    { name: "prometheus", valueName: "url", description: "A live Prometheus instead of --input, e.g. http://127.0.0.1:9090." },
    { name: "start", valueName: "t", description: "Window start: Unix seconds or ISO 8601 (with --prometheus)." },
    { name: "end", valueName: "t", description: "Window end: Unix seconds or ISO 8601 (with --prometheus)." },
    { name: "step", valueName: "s", description: "Query step in seconds (default 3)." },
    { name: "idle", valueName: "file", description: "Saved Prometheus response of the idle node (profile isolator)." },
    {
      name: "source",
      aliases: ["sources"],
      valueName: "a,b",
      description: "Energy sources, e.g. rapl-sysfs,acpi (default: every source in the data).",
    },
    {
      name: "feature-group",
      aliases: ["feature-groups"],
      valueName: "a,b",
      description: "Feature groups (default: every group valid for the data).",
    },
    {
      name: "extractor",
      valueName: "default|smooth",
      description: "default, or smooth (the default table then a rolling mean over 30 rows; drops the first 29).",
    },
    {
      name: "isolator",
      valueName: "name",
      description:
        "none, min, profile or trainer; default profile: the --idle or stored profile where one exists for the node type, else min.",
    },
    {
      name: "abs-trainers",
      valueName: "a,b",
      description: "AbsPower trainers (default, with --dyn-trainers unset: all implemented).",
    },
    {
      name: "dyn-trainers",
      valueName: "a,b",
      description: "DynPower trainers (default, with --abs-trainers unset: all implemented).",
    },
    { name: "target-hints", valueName: "a,b", description: "trainer isolator: container-name hints of the workload." },
    { name: "bg-hints", valueName: "a,b", description: "trainer isolator: container-name hints of background containers." },
    { name: "abs-pipeline-name", valueName: "name", description: "trainer isolator: pipeline of the AbsPower models." },
    {
      name: "machine-spec",
      valueName: "spec.json",
      description: "Machine spec {processor, cores, chips, memory, frequency}: indexed as a node type.",
    },
    {
      name: "machine-id",
      valueName: "id",
      description:
        "Machine id stored in node_type_index.json; without --machine-spec, machine_spec/<id>.json beside --input is used when present.",
    },
    { name: "node-type", valueName: "N", description: "Node type for every row (without --machine-spec)." },
    { name: "seed", valueName: "N", description: "Seed of the train/test splits (default 0)." },
    { name: "vm", boolean: true, description: "Train on VM metrics (metric_type vm_metrics)." },
    { name: "third-party-metrics", valueName: "a,b", description: "Metric names used verbatim as ThirdParty features." },
    {
      name: "online",
      boolean: true,
      description: "Repeat on the live Prometheus every --interval seconds, training only on new data.",
    },
    { name: "interval", valueName: "s", description: "Online: seconds between runs (default 300)." },
    { name: "lookback", valueName: "s", description: "Online: seconds of data each run reads (default: the interval)." },
    {
      name: "pipeline-address",
      valueName: "host:port",
      description: `The pipeline service (default ${peerAddressKey("pipeline").default}).`,
    },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, positionals, stdout, stderr, env }) {
    const action = positionals[0];
    if (action !== "run" && action !== "stop" && action !== "list") throw new UsageError("expected run, stop or list");
    const { address } = readConfig({ address: peerAddressKey("pipeline") }, env, flags);
    const pipeline = createPipelineClient(address, commandConnection({ env, flags }));
    try {
      if (action === "run") return await run(pipeline.client, flags, { stdout, stderr });
      if (action === "stop") {
        if (text(flags, "pipeline") === "") throw new UsageError("--pipeline is required");
        const { status } = await pipeline.client.stopOnlinePipeline({ pipelineName: text(flags, "pipeline") });
        stdout.write(`stopped online pipeline ${statusLine(status!)}`);
        return 0;
      }
      const listed = await pipeline.client.listPipelines({});
      stdout.write(
        formatTextTable(
          ["pipeline", "models", "node_types", "sources"],
          listed.pipelines.map((p) => [p.pipelineName, String(p.modelCount), String(p.nodeTypeCount), p.energySources.join(",")]),
        ),
      );
      for (const status of listed.onlinePipelines) stdout.write(`online ${statusLine(status)}`);
      return 0;
    } catch (error) {
      if (error instanceof ClientError) throw new Error(`${Status[error.code]}: ${error.details}`, { cause: error });
      throw error;
    } finally {
      pipeline.close();
    }
  },
};
