// Step "idle profiles": the profile isolator (also the default: profile where one exists for the node
// type, else min) uses the profiles built from this run's idle data, kept in the pipeline folder, or those
// an earlier run kept.
import type { PipelineRunOptions } from "../pipeline-options.js";
import type { PipelinePlan } from "../pipeline-plan.js";
import type { IdleProfileSet, PipelineFileContent } from "../pipeline-peers.js";
import { mergedProfileFiles, PROFILE_FOLDER, storedProfileSet } from "../stored-profiles.js";
import type { StepContext } from "./step-context.js";

export interface IdleProfilesOutcome {
  /** Undefined when the run isolates without profiles. */
  readonly idleProfiles?: IdleProfileSet;
  /** The profile files to keep in the pipeline folder (written with metadata.json). */
  readonly profileFiles: readonly PipelineFileContent[];
  readonly notices: readonly string[];
}

/** Builds or reads the idle profiles the plan calls for. */
export async function prepareIdleProfiles(
  context: StepContext,
  plan: PipelinePlan,
  options: PipelineRunOptions,
  idleResponse: Uint8Array | undefined,
): Promise<IdleProfilesOutcome> {
  if (plan.profiles === "none") {
    const notices = plan.idleDataIgnored
      ? [`idle data was ignored: only the profile isolator uses it (isolator: ${options.isolator})`]
      : [];
    return { profileFiles: [], notices };
  }
  const { peers, signal, emit } = context;
  const stored = await peers.readStoredProfiles(plan.pipelineName);
  if (plan.profiles === "build" && idleResponse !== undefined) {
    emit("profile", "idle", 0, 1, "building idle profiles");
    const nodeType = plan.nodeType ?? 0;
    const idleProfiles = await peers.buildIdleProfiles(
      idleResponse,
      { energySources: plan.sources, nodeType, useVmMetrics: options.useVmMetrics },
      signal,
    );
    const profileFiles = mergedProfileFiles(stored, idleProfiles, nodeType);
    emit("profile", "idle", 1, 1, `${idleProfiles.profiles.length} idle profiles`);
    return { idleProfiles, profileFiles, notices: [] };
  }
  // Without any profile the isolator says per table that it used min.
  const idleProfiles = storedProfileSet(stored);
  if (idleProfiles === undefined) return { profileFiles: [], notices: [] };
  return {
    idleProfiles,
    profileFiles: [],
    notices: [
      `isolating with the ${idleProfiles.profiles.length} idle profile(s) stored in ${PROFILE_FOLDER}/ (node types without one use min)`,
    ],
  };
}
