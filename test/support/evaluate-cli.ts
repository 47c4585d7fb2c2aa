// The `kepler-model evaluate` calls the evaluate tests make over the models useEvaluatedModels trains:
// one pipeline, one recording, the trained folder, then the flags a test is about.
import { cli, COREMARK, modelPath, PIPELINE, type Report } from "./evaluated-models.js";

/** Which pipeline evaluate scores and on which recording (default: the trained pipeline on coremark). */
export interface EvaluateTarget {
  readonly pipeline?: string;
  readonly input?: string;
}

/** `evaluate --pipeline <pipeline> --input <input> --model-path <the trained folder>` followed by `flags`. */
export function evaluateArgs(flags: readonly string[] = [], { pipeline = PIPELINE, input = COREMARK }: EvaluateTarget = {}) {
  return ["evaluate", "--pipeline", pipeline, "--input", input, "--model-path", modelPath, ...flags];
}

/** Runs evaluate (it must succeed quietly) and returns its printed table. */
export function evaluateText(flags: readonly string[] = [], target: EvaluateTarget = {}): Promise<string> {
  return cli(evaluateArgs(flags, target));
}

/** Runs evaluate with --json (it must succeed quietly) and returns the report. */
export async function evaluateJson<R extends Report = Report>(
  flags: readonly string[] = [],
  target: EvaluateTarget = {},
): Promise<R> {
  return JSON.parse(await cli(evaluateArgs([...flags, "--json"], target))) as R;
}
