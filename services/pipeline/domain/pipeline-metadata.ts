// A pipeline's metadata.json (reference Pipeline.metadata and save_metadata, spec §5.5): name, isolator,
// extractor, abs_trainers, dyn_trainers, metric_type, init_time, last_update_time, in that order; then
// `isolators`, the isolator each "<source>/<feature group>" actually got (the profile isolator falls back
// to min where no profile exists for the node type).
import type { ExtractorName, IsolatorName } from "./pipeline-peers.js";

export interface PipelineMetadataInput {
  readonly pipelineName: string;
  /** The isolator's short name, as the reference's get_name(): none, min, profile, trainer. */
  readonly isolator: IsolatorName;
  /** The isolator each "<source>/<feature group>" isolated in this run actually got. */
  readonly isolatorsUsed?: Readonly<Record<string, IsolatorName>>;
  /** The extractor's short name: default or smooth. */
  readonly extractor: ExtractorName;
  readonly absTrainerNames: readonly string[];
  readonly dynTrainerNames: readonly string[];
  readonly useVmMetrics: boolean;
  readonly nowSeconds: number;
  /** The metadata.json stored before this run, if any. */
  readonly previousText?: string;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the reference's time_to_str. */
export function formatUtcTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ");
}

function parseObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The metadata.json text after a run. A rerun keeps the first run's init_time and any keys it does not own
 * (export adds publisher, collect_time, export_time); trainer lists are the union over runs, each name once
 * (the reference repeats a name once per source and feature group: docs/deviations.md).
 */
export function createPipelineMetadata(input: PipelineMetadataInput): string {
  const previous = parseObject(input.previousText);
  const union = (before: unknown, now: readonly string[]) => [...new Set([...names(before), ...now])];
  const now = formatUtcTime(input.nowSeconds);
  const used = Object.values(input.isolatorsUsed ?? {});
  const isolators = { ...(isObject(previous.isolators) ? previous.isolators : {}), ...input.isolatorsUsed };
  const own = {
    name: input.pipelineName,
    // What this run's isolations all used (min when the default profile isolator found no profile), else
    // the isolator asked for.
    isolator: used.length > 0 && used.every((name) => name === used[0]) ? used[0]! : input.isolator,
    extractor: input.extractor,
    abs_trainers: union(previous.abs_trainers, input.absTrainerNames),
    dyn_trainers: union(previous.dyn_trainers, input.dynTrainerNames),
    metric_type: input.useVmMetrics ? "vm_metrics" : "bm_metrics",
    init_time: typeof previous.init_time === "string" ? previous.init_time : now,
    last_update_time: now,
    ...(Object.keys(isolators).length > 0 ? { isolators } : {}),
  };
  const rest = Object.fromEntries(Object.entries(previous).filter(([key]) => !(key in own)));
  return JSON.stringify({ ...own, ...rest });
}
