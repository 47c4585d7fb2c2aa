// What every step of a run gets: the peers, the run's cancellation signal and its progress stream.
import type { PipelinePeers } from "../pipeline-peers.js";

/** Sends one progress event (stage, subject, done of total, message). */
export type EmitProgress = (stage: string, subject: string, done: number, total: number, message: string) => void;

export interface StepContext {
  readonly peers: PipelinePeers;
  readonly signal?: AbortSignal;
  readonly emit: EmitProgress;
}

/**
 * Runs one of a run's effects (progress, a result, a notice, a counter) in table order: tables are worked on
 * side by side, and their effects replayed as if they ran one after the other (ordered-lanes.ts).
 */
export type Say = (effect: () => void) => void;

/** The message of anything thrown. */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));
