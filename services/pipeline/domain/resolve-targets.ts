// Which energy sources and feature groups a run trains, from the request and what the data holds
// (reference offline trainer: the valid groups of the data, §9.1; NewPipeline defaults, §5.5).
import { assertEnergySource, type EnergySource } from "../../domain/energy-sources.js";
import { FailedPreconditionError, InvalidInputError } from "../../domain/errors.js";
import { assertFeatureGroup, FULL_NEVER_VALID_REASON, type FeatureGroupName } from "../../domain/feature-groups.js";
import type { DataOverview } from "./pipeline-peers.js";

/** The data's sources we model (aliases normalised; sources we do not model, e.g. `nvidia`, skipped). */
function sourcesOfData(overview: DataOverview): EnergySource[] {
  const known = overview.energySources.flatMap((name) => {
    try {
      return [assertEnergySource(name)];
    } catch {
      return [];
    }
  });
  return [...new Set(known)];
}

/** The requested sources (every one present in the data), or all sources of the data. */
export function resolveEnergySources(requested: readonly string[], overview: DataOverview, field: string): EnergySource[] {
  const present = sourcesOfData(overview);
  if (requested.length === 0) {
    if (present.length === 0)
      throw new FailedPreconditionError("the data has no node energy series of a known source (rapl-sysfs, acpi, ...)");
    return present;
  }
  const resolved = requested.map((name, index) => {
    const source = assertEnergySource(name, `${field}[${index}]`);
    if (!present.includes(source)) {
      throw new InvalidInputError(
        `${field}[${index}]`,
        `the data has no ${source} power series (it has: ${present.join(", ") || "none"})`,
      );
    }
    return source;
  });
  return [...new Set(resolved)];
}

/**
 * The requested feature groups (every one valid for the data), or the reference's groups valid for the
 * data. The extra groups (IRQOnly, CgroupOnly, KubeletOnly) are trained when named, as the reference's
 * default run never trains them.
 */
export function resolveFeatureGroups(requested: readonly string[], overview: DataOverview, field: string): FeatureGroupName[] {
  const defaults = overview.validFeatureGroups;
  const valid = [...defaults, ...(overview.extraFeatureGroups ?? [])];
  if (requested.length === 0) {
    if (valid.length === 0)
      throw new FailedPreconditionError(
        "the data supports no feature group: it needs the workload metrics of at least one group",
      );
    return defaults.map((name) => assertFeatureGroup(name));
  }
  const resolved = requested.map((name, index) => {
    const group = assertFeatureGroup(name, `${field}[${index}]`);
    if (group === "Full" && !valid.includes(group)) throw new InvalidInputError(`${field}[${index}]`, FULL_NEVER_VALID_REASON);
    if (!valid.includes(group)) {
      throw new InvalidInputError(
        `${field}[${index}]`,
        `${group} is not valid for the data: some of its metrics are missing (valid: ${valid.join(", ") || "none"})`,
      );
    }
    return group;
  });
  return [...new Set(resolved)];
}
