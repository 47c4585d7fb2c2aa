// `kepler-model pipeline run|stop|list`: runs a pipeline on the pipeline service (reference `kepler-model
// train` and the offline trainer, §9.1, §9.4): a saved Prometheus response streamed inline, or a live
// Prometheus window; `--online` repeats it on an interval. Progress goes to stderr (a bar on a terminal,
// plain lines otherwise), the per-model results to stdout.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import type {
  OnlinePipelineStatus,
  RunPipelineOptions,
  RunPipelineRequest,
} from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { type TrainerResult, TrainOutcome } from "../../services/generated/kepler/model/v1/trainer_service.js";
import { outputTypeFromProto } from "../../services/kit/transport/output-type-codec.js";
import { byteChunks } from "../../services/kit/transport/byte-chunks.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { DEFAULT_STEP_SECONDS } from "../../services/prometheus/query-window.js";
import { type Command, UsageError } from "../command.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { COMMON_FLAGS, stepFlag, TRAINER_ISOLATOR_FLAGS, windowFlags, withDefault } from "../common-flags.js";
import { booleanFlag, type Flags, numberFlag, requiredFlag, textFlag } from "../flag-readers.js";
import { assertServerAnswers, serverAddressFlag } from "../server-address.js";
import { progressPrinter } from "../progress.js";
import { formatTextTable } from "../text-table.js";
import { writeJson } from "../write-text-file.js";
import { runOptions } from "./pipeline-run-options.js";

type Pipeline = ReturnType<typeof createPipelineClient>["client"];

async function readResponse(path: string): Promise<Buffer> {
  const bytes = await readFile(path);
  return path.endsWith(".gz") ? gunzipSync(bytes) : bytes;
}

function resultRow(r: TrainerResult): string[] {
  const ok = r.outcome === TrainOutcome.TRAIN_OUTCOME_SUCCEEDED;
  return [
    r.energySource,
    outputTypeFromProto(r.outputType) ?? "AbsPower",
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

interface RunArguments {
  readonly options: RunPipelineOptions;
  readonly input: string;
  readonly idle: string;
  readonly intervalSeconds: number;
  readonly lookbackSeconds: number;
}

async function runArguments(flags: Flags): Promise<RunArguments> {
  return {
    options: await runOptions(flags),
    input: textFlag(flags, "input") ?? "",
    idle: textFlag(flags, "idle") ?? "",
    intervalSeconds: numberFlag(flags, "interval", { positive: true }) ?? 300,
    lookbackSeconds: numberFlag(flags, "lookback", { positive: true }) ?? 0,
  };
}

async function run(
  pipeline: Pipeline,
  args: RunArguments,
  flags: Flags,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
) {
  const { options } = args;
  const json = booleanFlag(flags, "json");
  if (booleanFlag(flags, "online")) {
    const { status } = await pipeline.startOnlinePipeline({
      options,
      intervalSeconds: args.intervalSeconds,
      lookbackSeconds: args.lookbackSeconds,
    });
    if (json) writeJson(io.stdout, { started: status });
    else io.stdout.write(`started online pipeline ${statusLine(status!)}`);
    return 0;
  }
  const workload = args.input === "" ? undefined : await readResponse(args.input);
  const idle = args.idle === "" ? undefined : await readResponse(args.idle);
  async function* requests(): AsyncGenerator<RunPipelineRequest> {
    yield { content: { $case: "options", value: options } };
    for (const chunk of byteChunks(workload ?? Buffer.alloc(0))) yield { content: { $case: "responseChunk", value: chunk } };
    for (const chunk of byteChunks(idle ?? Buffer.alloc(0))) yield { content: { $case: "idleResponseChunk", value: chunk } };
  }
  const progress = progressPrinter(io.stderr);
  const results: TrainerResult[] = [];
  let succeeded = 0;
  try {
    for await (const response of pipeline.runPipeline(requests())) {
      const content = response.content;
      if (content?.$case === "progress") progress.show(content.value);
      else if (content?.$case === "result") results.push(content.value);
      else if (content?.$case === "summary") {
        progress.end();
        const s = content.value;
        succeeded = s.succeededCount;
        if (json) {
          writeJson(io.stdout, { summary: s, results });
          continue;
        }
        io.stdout.write(
          formatTextTable(["source", "output", "feature_group", "model", "mae_w", "status"], results.map(resultRow)),
        );
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
    "run --pipeline <name> (--input <response.json[.gz]> | --prometheus <url> --start <time> --end <time> [--step 3]) [flags] | stop --pipeline <name> | list",
  flags: [
    { name: "pipeline", aliases: ["name"], valueName: "name", description: "Pipeline name, e.g. std_v0.7.11." },
    COMMON_FLAGS.recording,
    { name: "prometheus", valueName: "url", description: "A live Prometheus instead of --input, e.g. http://127.0.0.1:9090." },
    ...windowFlags({ start: "with --prometheus", end: "with --prometheus" }),
    stepFlag(`${DEFAULT_STEP_SECONDS}`),
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
    withDefault(COMMON_FLAGS.extractor, "default"),
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
    ...TRAINER_ISOLATOR_FLAGS,
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
    COMMON_FLAGS.vm,
    COMMON_FLAGS.thirdPartyMetrics,
    {
      name: "online",
      boolean: true,
      description: "Repeat on the live Prometheus every --interval seconds, training only on new data.",
    },
    { name: "interval", valueName: "s", description: "Online: seconds between runs (default 300)." },
    { name: "lookback", valueName: "s", description: "Online: seconds of data each run reads (default: the interval)." },
    serverAddressFlag("pipeline"),
    { name: "json", boolean: true, description: "Print the results (run), the status (stop) or the pipelines (list) as JSON." },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, positionals, stdout, stderr, env }) {
    const action = positionals[0];
    if (action !== "run" && action !== "stop" && action !== "list") throw new UsageError("expected run, stop or list");
    const json = booleanFlag(flags, "json");
    const runArgs = action === "run" ? await runArguments(flags) : undefined;
    const stopName = action === "stop" ? requiredFlag(flags, "pipeline") : undefined;
    const address = await assertServerAnswers("pipeline", { env, flags });
    const pipeline = createPipelineClient(address, commandConnection({ env, flags }));
    try {
      if (runArgs !== undefined) return await run(pipeline.client, runArgs, flags, { stdout, stderr });
      if (stopName !== undefined) {
        const { status } = await pipeline.client.stopOnlinePipeline({ pipelineName: stopName });
        if (json) writeJson(stdout, { stopped: status });
        else stdout.write(`stopped online pipeline ${statusLine(status!)}`);
        return 0;
      }
      const listed = await pipeline.client.listPipelines({});
      if (json) {
        writeJson(stdout, listed);
        return 0;
      }
      if (listed.pipelines.length === 0 && listed.onlinePipelines.length === 0) {
        stdout.write("no pipelines yet: train one with `kepler-model pipeline run` (or start the server with default models)\n");
        return 0;
      }
      stdout.write(
        formatTextTable(
          ["pipeline", "models", "node_types", "sources"],
          listed.pipelines.map((p) => [p.pipelineName, String(p.modelCount), String(p.nodeTypeCount), p.energySources.join(",")]),
        ),
      );
      for (const status of listed.onlinePipelines) stdout.write(`online ${statusLine(status)}`);
      return 0;
    } finally {
      pipeline.close();
    }
  },
};
