// `kepler-model exporter` as a VM runs it, started for a test: any port, a tick every half second, and
// the test's own source of models and counters as flags.
import { spawnNode, type RunningChild } from "../../support/child-process.js";

/** Starts the real exporter process with `flags` (its model source and anything the test adds). */
export function spawnExporter(flags: readonly string[]): RunningChild {
  return spawnNode(["bin/kepler-model.js", "exporter", "--port", "0", "--interval-seconds", "0.5", ...flags]);
}
