// How to run a pipeline (the reference's offline TrainRequest and `kepler-model train` flags, §9.1, §9.4),
// validated once before any peer is called.
import { InvalidInputError } from "../../domain/errors.js";
import { assertPathSegment } from "../../models/index.js";
import type { MachineSpec } from "../../node-types/index.js";
import type { ExtractSpec, IsolateSpec, PrometheusWindowSpec } from "./pipeline-peers.js";

/** Where the workload (and idle) data comes from. */
export type PipelineData =
  { readonly kind: "inline"; readonly response: Uint8Array } | { readonly kind: "window"; readonly window: PrometheusWindowSpec };

/**
 * One run: the extraction and isolation settings it passes unchanged to every table it extracts and
 * isolates, and what it trains.
 */
export interface PipelineRunOptions
  extends
    Pick<ExtractSpec, "extractor" | "useVmMetrics" | "thirdPartyMetricNames">,
    Pick<IsolateSpec, "isolator" | "targetHints" | "backgroundHints" | "absPipelineName"> {
  readonly pipelineName: string;
  /** Empty: every source present in the data. */
  readonly energySources: readonly string[];
  /** Empty: every group valid for the data. */
  readonly featureGroups: readonly string[];
  readonly absTrainerNames: readonly string[];
  readonly dynTrainerNames: readonly string[];
  readonly data: PipelineData;
  /** Idle data for the profile isolator; undefined when there is none. */
  readonly idleData?: PipelineData;
  /** The machine the data was recorded on, indexed under `machineId`. */
  readonly machine?: { readonly spec: MachineSpec; readonly machineId: string };
  /** Node type for every row (ignored when `machine` is set). */
  readonly nodeType?: number;
  readonly seed: number;
  /** Continue from the trainers' checkpoints (online runs). */
  readonly continueFromCheckpoint?: boolean;
}

/** Checks what can be checked without the data; errors name the request field. */
export function assertRunOptions(options: PipelineRunOptions, field = "options"): void {
  if (options.pipelineName === "") throw new InvalidInputError(`${field}.pipeline_name`, "required");
  assertPathSegment(options.pipelineName, `${field}.pipeline_name`);
  if (options.absTrainerNames.length === 0 && options.dynTrainerNames.length === 0) {
    throw new InvalidInputError(
      `${field}.abs_trainer_names`,
      "name at least one AbsPower or DynPower trainer (abs_trainer_names, dyn_trainer_names)",
    );
  }
  const blank = [...options.absTrainerNames, ...options.dynTrainerNames].findIndex((name) => name.trim() === "");
  if (blank >= 0) throw new InvalidInputError(`${field}.trainer_names`, "trainer names must not be empty");
  if (options.machine !== undefined && options.machine.machineId === "") {
    throw new InvalidInputError(`${field}.machine_id`, "required with machine_spec (it is stored in the node type's members)");
  }
  if (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 0xffffffff)
    throw new InvalidInputError(`${field}.seed`, `expected an integer in [0, 2^32), got ${options.seed}`);
  if (options.nodeType !== undefined && !Number.isInteger(options.nodeType))
    throw new InvalidInputError(`${field}.node_type`, `expected an integer, got ${options.nodeType}`);
}
