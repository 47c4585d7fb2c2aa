// The options of `kepler-model pipeline run`, read from its flags: every flag checked (files exist, names
// known, numbers numbers) before anything is read or sent to the pipeline service.
import { readFile } from "node:fs/promises";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import {
  ExtractorKind,
  IsolatorKind,
  type MachineSpec,
  type PrometheusWindow,
} from "../../services/generated/kepler/model/v1/types.js";
import { DEFAULT_STEP_SECONDS } from "../../services/prometheus/query-window.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { UsageError } from "../command.js";
import { trainerIsolatorHints } from "../common-flags.js";
import {
  assertInputFile,
  booleanFlag,
  choiceFlag,
  type Flags,
  integerFlag,
  knownItemsFlag,
  listFlag,
  numberFlag,
  requiredFlag,
  textFlag,
  timeFlag,
} from "../flag-readers.js";
import { fileExists, machineSpecPathBeside } from "../machine-spec-file.js";

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

/** Unix seconds, or an ISO 8601 date; required with --prometheus (unless online). */
function windowTime(flags: Flags, name: string): number {
  const seconds = timeFlag(flags, name);
  if (seconds === undefined) throw new UsageError(`--${name} is required with --prometheus`);
  return seconds;
}

/** A machine spec file in the reference's spec.json shape: {processor, cores, chips, memory, frequency}. */
async function readMachineSpec(path: string): Promise<MachineSpec> {
  let spec: Record<string, unknown>;
  try {
    spec = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--machine-spec ${path}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
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
  const input = textFlag(flags, "input");
  const machineId = textFlag(flags, "machine-id");
  if (input === undefined || machineId === undefined) return "";
  const path = machineSpecPathBeside(input, machineId);
  return (await fileExists(path)) ? path : "";
}

/** Every flag of `run`, checked (files exist, names known, numbers numbers) before anything is read or sent. */
export async function runOptions(flags: Flags): Promise<RunPipelineOptions> {
  const name = requiredFlag(flags, "pipeline");
  // Default: profile where one exists for the node type (--idle or stored in the pipeline), else min.
  const isolator = choiceFlag(flags, "isolator", Object.keys(ISOLATORS), "profile");
  const extractor = choiceFlag(flags, "extractor", Object.keys(EXTRACTORS), "default");
  const given = flags["abs-trainers"] !== undefined || flags["dyn-trainers"] !== undefined;
  const all = listTrainers().map((t) => t.name);
  const absTrainerNames = given ? knownItemsFlag(flags, "abs-trainers", all, "trainer") : all;
  const dynTrainerNames = given ? knownItemsFlag(flags, "dyn-trainers", all, "trainer") : all;
  const prometheus = textFlag(flags, "prometheus");
  const online = booleanFlag(flags, "online");
  const window: PrometheusWindow | undefined =
    prometheus === undefined
      ? undefined
      : {
          baseUrl: prometheus,
          startTimeSeconds: online ? 0 : windowTime(flags, "start"),
          endTimeSeconds: online ? 0 : windowTime(flags, "end"),
          stepSeconds: numberFlag(flags, "step", { positive: true }) ?? DEFAULT_STEP_SECONDS,
          thirdPartyMetricNames: listFlag(flags, "third-party-metrics"),
          metricPrefix: "",
        };
  const input = textFlag(flags, "input");
  if (window === undefined && input === undefined) throw new UsageError("give --input <response.json> or --prometheus <url>");
  if (window !== undefined && input !== undefined) throw new UsageError("give --input or --prometheus, not both");
  if (online && window === undefined) throw new UsageError("--online reads a live Prometheus: give --prometheus <url>");
  if (input !== undefined) await assertInputFile(input, "input");
  const idle = textFlag(flags, "idle");
  if (idle !== undefined) await assertInputFile(idle, "idle");
  const specPath = textFlag(flags, "machine-spec");
  if (specPath !== undefined && textFlag(flags, "machine-id") === undefined)
    throw new UsageError("--machine-spec needs --machine-id");
  const machineSpecPath = specPath === undefined ? await specBesideInput(flags) : await assertInputFile(specPath, "machine-spec");
  const machineSpec = machineSpecPath === "" ? undefined : await readMachineSpec(machineSpecPath);
  return RunPipelineOptions.fromPartial({
    pipelineName: name,
    energySources: listFlag(flags, "source"),
    featureGroups: listFlag(flags, "feature-group"),
    extractor: EXTRACTORS[extractor],
    isolator: ISOLATORS[isolator],
    ...trainerIsolatorHints(flags),
    absTrainerNames,
    dynTrainerNames,
    window,
    machineSpec,
    // Unset reads as "" so the request's default applies.
    machineId: textFlag(flags, "machine-id") ?? "",
    nodeType: integerFlag(flags, "node-type"),
    seed: integerFlag(flags, "seed", { min: 0 }),
    useVmMetrics: booleanFlag(flags, "vm"),
    thirdPartyMetricNames: listFlag(flags, "third-party-metrics"),
  });
}
