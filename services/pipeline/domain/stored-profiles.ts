// Idle profiles kept in the pipeline folder, as the reference's profiler writes them (§9.3):
// `profile/<source>.json` = component -> "<node_type>" -> {min_watt, max_watt, "#unit"}. The containers
// seen while idle (the profile isolator removes them as background) go beside it in
// `profile/background_containers.json` = "<node_type>" -> names, a file the reference does not have.
// A run with idle data stores its profiles (merged with other node types already stored); a later run
// without idle data isolates with the stored ones.
import type { IdleProfileEntry, IdleProfileSet, PipelineFileContent } from "./pipeline-peers.js";

export const PROFILE_FOLDER = "profile";
const BACKGROUND_FILE = `${PROFILE_FOLDER}/background_containers.json`;

type SourceProfileFile = Record<string, Record<string, { min_watt: number; max_watt: number; "#unit": number }>>;

function parseJson(file: PipelineFileContent): unknown {
  try {
    return JSON.parse(file.text);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The profiles and background containers in stored files; unreadable entries are skipped. */
export function readStoredProfiles(files: readonly PipelineFileContent[]): {
  profiles: IdleProfileEntry[];
  background: Map<number, string[]>;
} {
  const profiles: IdleProfileEntry[] = [];
  const background = new Map<number, string[]>();
  for (const file of files) {
    const content = parseJson(file);
    if (!isObject(content)) continue;
    if (file.path === BACKGROUND_FILE) {
      for (const [nodeType, names] of Object.entries(content))
        if (Array.isArray(names))
          background.set(
            Number(nodeType),
            names.filter((name) => typeof name === "string"),
          );
      continue;
    }
    const source = /^profile\/([A-Za-z0-9_-]+)\.json$/.exec(file.path)?.[1];
    if (source === undefined) continue;
    for (const [component, byNodeType] of Object.entries(content)) {
      if (!isObject(byNodeType)) continue;
      for (const [nodeType, entry] of Object.entries(byNodeType)) {
        if (!isObject(entry)) continue;
        const { min_watt: min, max_watt: max, "#unit": units } = entry;
        if (typeof min !== "number" || typeof max !== "number" || typeof units !== "number") continue;
        if (!Number.isInteger(Number(nodeType))) continue;
        profiles.push({
          energySource: source,
          component,
          nodeType: Number(nodeType),
          minWatts: min,
          maxWatts: max,
          unitCount: units,
        });
      }
    }
  }
  return { profiles, background };
}

/** The stored profiles as the isolator takes them; undefined when none is stored. */
export function storedProfileSet(files: readonly PipelineFileContent[]): IdleProfileSet | undefined {
  const { profiles, background } = readStoredProfiles(files);
  if (profiles.length === 0) return undefined;
  return { profiles, backgroundContainerNames: [...new Set([...background.values()].flat())].sort() };
}

/**
 * The profile files after a run that built `built` on `nodeType`: its entries replace the stored ones of
 * the same source, component and node type; other node types stay.
 */
export function mergedProfileFiles(
  stored: readonly PipelineFileContent[],
  built: IdleProfileSet,
  nodeType: number,
): PipelineFileContent[] {
  const before = readStoredProfiles(stored);
  const key = (p: IdleProfileEntry) => `${p.energySource}/${p.component}/${p.nodeType}`;
  const replaced = new Set(built.profiles.map(key));
  const profiles = [...before.profiles.filter((p) => !replaced.has(key(p))), ...built.profiles];
  const bySource = new Map<string, SourceProfileFile>();
  for (const profile of profiles) {
    const file = bySource.get(profile.energySource) ?? {};
    file[profile.component] ??= {};
    file[profile.component]![String(profile.nodeType)] = {
      min_watt: profile.minWatts,
      max_watt: profile.maxWatts,
      "#unit": profile.unitCount,
    };
    bySource.set(profile.energySource, file);
  }
  const background = new Map(before.background);
  background.set(nodeType, [...built.backgroundContainerNames]);
  return [
    ...[...bySource]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([source, file]) => ({
        path: `${PROFILE_FOLDER}/${source}.json`,
        text: JSON.stringify(file, null, 1),
      })),
    { path: BACKGROUND_FILE, text: JSON.stringify(Object.fromEntries([...background].sort(([a], [b]) => a - b))) },
  ];
}
