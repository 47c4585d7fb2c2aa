// Which containers the trainer isolator treats as background (reference TrainIsolator, spec §4.5), with
// the reference's inverted hint logic fixed (spec Appendix A.13, docs/deviations.md).

/** Container-name hints: substrings naming targets or background containers. */
export interface ContainerHints {
  readonly targetHints: readonly string[];
  readonly backgroundHints: readonly string[];
}

/**
 * The background test for a container name: with target hints, every container whose name contains none
 * of them is background; otherwise, with background hints, a container is background when its name
 * contains one of them; with no hints, no container is background (the reference made every container
 * background there, and read background hints as target hints).
 */
export function backgroundSelector(hints: ContainerHints): (containerName: string) => boolean {
  if (hints.targetHints.length > 0) return (name) => !hints.targetHints.some((hint) => name.includes(hint));
  if (hints.backgroundHints.length > 0) return (name) => hints.backgroundHints.some((hint) => name.includes(hint));
  return () => false;
}
