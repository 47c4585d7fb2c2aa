// What a training run reports: per trainer and node type, per component, plus progress steps.
import type { ModelArchive, ModelLocation } from "../../models/index.js";

/** Accuracy of one component on the test rows, exact (metadata.json holds them rounded to 2 decimals). */
export interface ComponentResult {
  component: string;
  maeWatts: number;
  mapePercent: number;
  /** Test-row predictions, in test-row order. */
  testPredictions: Float64Array;
  testTimestamps: Float64Array;
  /**
   * The same test rows scored as the estimator serves the model (predictions clamped at 0), exact: metadata
   * `held_out`; and |y - served prediction| sorted ascending, the split-conformal calibration residuals.
   */
  heldOut: { maeWatts: number; mapePercent: number; absResidualsSorted: Float64Array };
}

/** The outcome of one trainer on one node type. */
export interface TrainerResult {
  trainerName: string;
  nodeType: number;
  modelName: string;
  outcome: "succeeded" | "failed";
  failureReason?: string;
  components: ComponentResult[];
  /** Max component MAE (exact). */
  maeWatts: number;
  /** Max component MAPE (exact). */
  mapePercent: number;
  trainRowCount: number;
  testRowCount: number;
  hasWeights: boolean;
  /** The archive built for a successful trainer (also when not published). */
  archive?: ModelArchive;
  publishedLocation?: ModelLocation;
}

/** One progress step. */
export interface TrainProgress {
  stage: "train" | "publish";
  /** `<trainer>/<component>` for fits, the model name for publishing. */
  subject: string;
  done: number;
  total: number;
  message: string;
}

/** The whole run. */
export interface TrainModelsResult {
  results: TrainerResult[];
  nodeTypes: number[];
  rowCount: number;
}
