// Translation between the isolator's wire messages and its domain types.
import { assertEnergySource } from "../domain/energy-sources.js";
import { InvalidInputError } from "../domain/errors.js";
import type {
  IsolateOptions as IsolateOptionsMessage,
  IdleProfile as IdleProfileMessage,
  IsolateSummary,
} from "../generated/kepler/model/v1/isolator_service.js";
import { IsolatorKind } from "../generated/kepler/model/v1/types.js";
import type { IdleProfile } from "./domain/idle-profile.js";
import type { IsolateOptions, IsolationSummary, IsolatorName } from "./domain/isolate.js";

const KIND_TO_NAME: Record<number, IsolatorName> = {
  [IsolatorKind.ISOLATOR_KIND_UNSPECIFIED]: "min",
  [IsolatorKind.ISOLATOR_KIND_NONE]: "none",
  [IsolatorKind.ISOLATOR_KIND_MIN]: "min",
  [IsolatorKind.ISOLATOR_KIND_PROFILE]: "profile",
  [IsolatorKind.ISOLATOR_KIND_TRAINER]: "trainer",
};

/** The isolator name of an enum value (unspecified means min); InvalidInputError naming `field` otherwise. */
export function isolatorNameOf(kind: IsolatorKind, field: string): IsolatorName {
  const name = KIND_TO_NAME[kind];
  if (name === undefined) throw new InvalidInputError(field, `unknown isolator kind ${kind}`);
  return name;
}

/** The enum value of an isolator name. */
export function isolatorKindOf(name: IsolatorName): IsolatorKind {
  switch (name) {
    case "none":
      return IsolatorKind.ISOLATOR_KIND_NONE;
    case "min":
      return IsolatorKind.ISOLATOR_KIND_MIN;
    case "profile":
      return IsolatorKind.ISOLATOR_KIND_PROFILE;
    case "trainer":
      return IsolatorKind.ISOLATOR_KIND_TRAINER;
  }
}

/** Decodes and validates wire isolate options. */
export function decodeIsolateOptions(options: IsolateOptionsMessage, field: string): IsolateOptions {
  if (options.energySource === "") throw new InvalidInputError(`${field}.energy_source`, "required");
  return {
    isolator: isolatorNameOf(options.isolator, `${field}.isolator`),
    energySource: assertEnergySource(options.energySource, `${field}.energy_source`),
    nodeType: options.nodeType,
    idleProfiles: options.idleProfiles.map((profile, index) => decodeIdleProfile(profile, `${field}.idle_profiles[${index}]`)),
    backgroundContainerNames: options.backgroundContainerNames,
    fallBackToMin: options.fallBackToMin,
    targetHints: options.targetHints,
    backgroundHints: options.backgroundHints,
    absPipelineName: options.absPipelineName,
  };
}

/** A wire idle profile as a domain profile. */
function decodeIdleProfile(profile: IdleProfileMessage, field: string): IdleProfile {
  if (profile.component === "") throw new InvalidInputError(`${field}.component`, "required");
  return {
    energySource: assertEnergySource(profile.energySource, `${field}.energy_source`),
    component: profile.component,
    nodeType: profile.nodeType,
    minWatts: profile.minWatts,
    maxWatts: profile.maxWatts,
    unitCount: profile.unitCount,
  };
}

/** A domain profile as a wire message. */
export function encodeIdleProfile(profile: IdleProfile): IdleProfileMessage {
  return { ...profile };
}

/** The isolation summary as a wire message. */
export function encodeIsolateSummary(summary: IsolationSummary): IsolateSummary {
  return {
    isolator: isolatorKindOf(summary.isolator),
    backgrounds: summary.backgrounds.map((entry) => ({ labelColumnName: entry.labelColumn, backgroundWatts: entry.watts })),
    backgroundContainerNames: [...summary.backgroundContainerNames],
    targetContainerCount: summary.targetContainerCount,
    absModelName: summary.absModel?.modelName ?? "",
    absFeatureGroup: summary.absModel?.featureGroup ?? "",
    absModelMaeWatts: summary.absModel?.maeWatts ?? 0,
    absMaxCorrelation: summary.absModel?.maxCorrelation ?? 0,
    rowCount: summary.rowCount,
    notices: [...summary.notices],
  };
}
