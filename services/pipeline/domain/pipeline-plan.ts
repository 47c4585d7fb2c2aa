// What a run will do, decided before any table is touched: the sources x feature groups x output types
// it trains (each a table with its trainers and steps), whether it builds or reads idle profiles, and the
// totals its progress counts towards. The run (run-pipeline.ts) then carries the plan out step by step.
import type { EnergySource } from "../../domain/energy-sources.js";
import { type FeatureGroupName, featuresOf } from "../../domain/feature-groups.js";
import type { OutputTypeName } from "../../models/index.js";
import type { PipelineRunOptions } from "./pipeline-options.js";
import type { NodeTypeAssignment } from "./steps/index-machine.js";

/** The steps a table goes through: AbsPower tables are trained on the node table, DynPower on the isolated one. */
export type TableStepName = "extract" | "isolate" | "train";

/** One table of the run: one (source, feature group, output type) and the trainers fitted on it. */
export interface TablePlan {
  readonly energySource: EnergySource;
  readonly featureGroup: FeatureGroupName;
  readonly outputType: OutputTypeName;
  readonly level: "node" | "container";
  readonly trainerNames: readonly string[];
  readonly steps: readonly TableStepName[];
  /** Model features instead of the group's fixed list (ThirdParty, WorkloadOnly with third-party metrics). */
  readonly featureNames: readonly string[];
  /** Index of the table that must finish first (the trainer isolator uses this run's own AbsPower models). */
  readonly waitsFor?: number;
}

/** Where the profile isolator's idle profiles come from. */
export type ProfilePlan = "build" | "stored" | "none";

export interface PipelinePlan {
  readonly pipelineName: string;
  readonly sources: readonly EnergySource[];
  readonly groups: readonly FeatureGroupName[];
  /** The node type of every row; undefined keeps the data's node_type column. */
  readonly nodeType?: number;
  /** AbsPower then DynPower per (source, feature group), sources outer, groups inner. */
  readonly tables: readonly TablePlan[];
  readonly profiles: ProfilePlan;
  /** Idle data came but only the profile isolator uses it. */
  readonly idleDataIgnored: boolean;
  /** The level of the first table: its extraction tells an online run whether the data is new. */
  readonly probeLevel: "node" | "container";
  /** What progress counts towards per stage. */
  readonly totals: { readonly extract: number; readonly isolate: number; readonly train: number };
}

/**
 * Features the trainer must use instead of the group's fixed list: the third-party metrics for
 * ThirdParty, and WorkloadOnly plus them (the reference's update_thirdparty_metrics redefines WorkloadOnly
 * so); empty otherwise.
 */
function modelFeatureNames(group: FeatureGroupName, thirdPartyMetricNames: readonly string[]): readonly string[] {
  if (thirdPartyMetricNames.length === 0 || (group !== "ThirdParty" && group !== "WorkloadOnly")) return [];
  return featuresOf(group, thirdPartyMetricNames);
}

/** The plan of a run over the resolved sources and groups, with the node type the rows get. */
export function planPipeline(
  options: PipelineRunOptions,
  targets: { readonly sources: readonly EnergySource[]; readonly groups: readonly FeatureGroupName[] },
  nodeType: NodeTypeAssignment,
): PipelinePlan {
  const { sources, groups } = targets;
  const hasAbs = options.absTrainerNames.length > 0;
  const hasDyn = options.dynTrainerNames.length > 0;
  const tables: TablePlan[] = [];
  for (const energySource of sources) {
    for (const featureGroup of groups) {
      const featureNames = modelFeatureNames(featureGroup, options.thirdPartyMetricNames);
      const absIndex = hasAbs ? tables.length : undefined;
      if (hasAbs) {
        const steps: TableStepName[] = ["extract", "train"];
        tables.push({
          energySource,
          featureGroup,
          outputType: "AbsPower",
          level: "node",
          trainerNames: options.absTrainerNames,
          steps,
          featureNames,
        });
      }
      if (hasDyn) {
        const waitsFor = options.isolator === "trainer" ? absIndex : undefined;
        const steps: TableStepName[] = ["extract", "isolate", "train"];
        tables.push({
          energySource,
          featureGroup,
          outputType: "DynPower",
          level: "container",
          trainerNames: options.dynTrainerNames,
          steps,
          featureNames,
          ...(waitsFor === undefined ? {} : { waitsFor }),
        });
      }
    }
  }
  const profileIsolator = options.isolator === "profile" && hasDyn;
  const pairs = sources.length * groups.length;
  return {
    pipelineName: options.pipelineName,
    sources,
    groups,
    ...(nodeType.nodeType >= 0 ? { nodeType: nodeType.nodeType } : {}),
    tables,
    profiles: profileIsolator ? (options.idleData !== undefined ? "build" : "stored") : "none",
    idleDataIgnored: !profileIsolator && options.idleData !== undefined,
    probeLevel: hasAbs ? "node" : "container",
    totals: {
      extract: tables.length,
      isolate: hasDyn ? pairs : 0,
      train: pairs * (options.absTrainerNames.length + options.dynTrainerNames.length),
    },
  };
}
