// What evaluate finds per model: its errors on the recording, or why it was skipped.
import type { ComponentError } from "../../services/estimator/domain/evaluate-predictor.js";
import type { ScoredRowsKind } from "../../services/estimator/domain/scored-rows.js";
import type { OutputTypeName } from "../../services/models/index.js";

/** One model's errors on the recording. */
export interface ModelEvaluation {
  readonly energySource: string;
  readonly outputType: OutputTypeName;
  readonly featureGroup: string;
  readonly modelName: string;
  readonly rowCount: number;
  /** Which rows were scored: the model's stored test rows, another recording's, or every row (in-sample). */
  readonly scoredRows: ScoredRowsKind;
  /** The largest component MAE: the reference's score for a model. */
  readonly maeWatts: number;
  /** metadata.json `mae` of the training run (test rows, rounded), for comparison. */
  readonly trainedMaeWatts: number | null;
  /** metadata.json `held_out.mae`: the training run's exact held-out MAE, when the model stores it. */
  readonly storedHeldOutMaeWatts: number | null;
  readonly components: readonly ComponentError[];
}

/** A model that could not be evaluated, and why. */
export interface SkippedModel {
  readonly energySource: string;
  readonly outputType: OutputTypeName;
  readonly featureGroup: string;
  readonly modelName: string;
  readonly reason: string;
}
