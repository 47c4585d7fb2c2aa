// The flags several commands share, declared once so that each reads and is explained the same in every
// command's --help (and docs/cli.md). A command lists the ones it takes beside its own.
import type { ExtractOptions } from "../services/extractor/domain/extract.js";
import type { FlagSpec } from "./command.js";
import { booleanFlag, energySourceFlag, featureGroupFlag, type Flags, integerFlag, listFlag, textFlag } from "./flag-readers.js";

const valued = (name: string, valueName: string, description: string): FlagSpec => ({ name, valueName, description });

/** The shared flags, by what they mean. Read them with the flag-readers.ts reader named beside each. */
export const COMMON_FLAGS = {
  /** inputFileFlag: a recording, as `kepler-model query` saves it. */
  recording: valued("input", "file", "Saved Prometheus response JSON (`kepler-model query` format); .gz is read too."),
  /** energySourceFlag. */
  energySource: valued(
    "source",
    "src",
    "Energy source: rapl-sysfs, rapl-msr, acpi, hmc, redfish (rapl, intel_rapl mean rapl-sysfs).",
  ),
  /** featureGroupFlag. */
  featureGroup: valued("feature-group", "fg", "Feature group, e.g. CounterOnly, BPFOnly, Basic; also CgroupOnly, KubeletOnly."),
  /** choiceFlag over OUTPUT_TYPE_NAMES, AbsPower when not given. */
  outputType: valued("output-type", "type", "AbsPower (node power, default) or DynPower (process/container power)."),
  /** choiceFlag over default, smooth; give its default with withDefault. */
  extractor: valued(
    "extractor",
    "default|smooth",
    "default (the reference's) or smooth (a rolling mean over 30 rows; drops the first 29).",
  ),
  /** integerFlag. */
  nodeType: valued("node-type", "N", "Node type for every row, replacing the table's node_type column."),
  /** booleanFlag. */
  vm: { name: "vm", boolean: true, description: "Read VM metrics (kepler_process_*, kepler_vm_*, job=vm)." },
  /** listFlag. */
  thirdPartyMetrics: valued("third-party-metrics", "a,b", "Comma-separated metric names used verbatim as ThirdParty features."),
} as const satisfies Record<string, FlagSpec>;

/** Which table to extract from a recording. */
export type ExtractSelection = Pick<ExtractOptions, "energySource" | "featureGroup" | "nodeType" | "useVmMetrics">;

/** The selection from --source and --feature-group (both required), --node-type and --vm. */
export function extractSelection(flags: Flags): ExtractSelection {
  return {
    energySource: energySourceFlag(flags, "source", true),
    featureGroup: featureGroupFlag(flags, "feature-group", true),
    nodeType: integerFlag(flags, "node-type"),
    useVmMetrics: booleanFlag(flags, "vm"),
  };
}

/** A shared flag with a sentence of this command's about it (when it applies, what it defaults to). */
export function withNote(flag: FlagSpec, note: string): FlagSpec {
  return { ...flag, description: `${flag.description} ${note}` };
}

/** A shared flag with what it defaults to in this command. */
export function withDefault(flag: FlagSpec, defaultText: string): FlagSpec {
  return withNote(flag, `Default: ${defaultText}.`);
}

/** --start and --end of a Prometheus window (read with timeFlag); the notes say what each goes with. */
export function windowFlags(notes: { start: string; end: string }): FlagSpec[] {
  return [
    valued("start", "time", `Window start: Unix seconds or ISO 8601 (${notes.start}).`),
    valued("end", "time", `Window end: Unix seconds or ISO 8601 (${notes.end}).`),
  ];
}

/** --step of the Prometheus queries; `defaultNote` gives the default and, if any, why. */
export function stepFlag(defaultNote: string): FlagSpec {
  return valued("step", "s", `Query step in seconds (default ${defaultNote}).`);
}

/** The trainer isolator's hints (read with trainerIsolatorHints). */
export const TRAINER_ISOLATOR_FLAGS: readonly FlagSpec[] = [
  valued("target-hints", "a,b", "trainer isolator: container-name hints of the target workload."),
  valued("bg-hints", "a,b", "trainer isolator: container-name hints of background containers."),
  valued("abs-pipeline-name", "name", "trainer isolator: the pipeline whose AbsPower models predict background."),
];

/** What the trainer isolator is told: which containers are the workload and which models predict the rest. */
export interface TrainerIsolatorHints {
  readonly targetHints: string[];
  readonly backgroundHints: string[];
  /** "" when not given. */
  readonly absPipelineName: string;
}

/** The trainer isolator's hints as given; empty when not. */
export function trainerIsolatorHints(flags: Flags): TrainerIsolatorHints {
  return {
    targetHints: listFlag(flags, "target-hints"),
    backgroundHints: listFlag(flags, "bg-hints"),
    absPipelineName: textFlag(flags, "abs-pipeline-name") ?? "",
  };
}
