// What training may do beyond computing: publish, checkpoint, report progress and log (trainModels' deps).
import type { Checkpoint, ModelArchive, ModelGroup, SerializedCheckpoint } from "../../models/index.js";
import type { ComponentFitter } from "./fit-components.js";
import type { FitDurations } from "./fit-durations.js";
import type { TrainerResult, TrainProgress } from "./training-results.js";

/** Side effects, all optional: where to publish, checkpoint storage, progress, a minimal logger. */
export interface TrainModelsDeps {
  publishModel?(archive: ModelArchive): Promise<void>;
  readCheckpoint?(group: ModelGroup, trainerName: string, component: string, nodeType: number): Promise<Checkpoint | undefined>;
  /** Stores a checkpoint, serialised on the fit's thread. */
  writeCheckpoint?(group: ModelGroup, checkpoint: SerializedCheckpoint): Promise<void>;
  onProgress?(event: TrainProgress): void;
  onResult?(result: TrainerResult): void;
  logger?: { warn(fields: object, message: string): void };
  /** Runs the fits; on this thread, one at a time, when unset. */
  fitter?: ComponentFitter;
  /** Fit times seen (the longest expected fits start first); the process's when unset. */
  fitDurations?: FitDurations;
  /** Milliseconds since the epoch, read once per call for the models' training time; Date.now when unset. */
  clock?(): number;
  /** Stops before the next trainer when aborted (a cancelled RPC); nothing more is published. */
  signal?: AbortSignal;
}
