// Facts read from Kepler's own Go sources at a tag (unchanged fixtures), so the tests compare our patches
// with what that Kepler release reads, not with a second list of ours.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { keplerFixture } from "./kepler-renders.js";

/** What Kepler 0.7-0.9 reads from its ConfigMap and where. */
export interface KeplerSettings {
  /** The folder holding one file per setting (pkg/config: configDir, later BaseDir). */
  readonly configDir: string;
  /** Every setting name Kepler reads with getConfig / getBoolConfig / getIntConfig. */
  readonly keys: ReadonlySet<string>;
  /** Every MODEL_CONFIG key Kepler looks up: `<power source>_<attribute>` (pkg/model getModelConfigKey). */
  readonly modelConfigKeys: ReadonlySet<string>;
  /** The unix socket Kepler's estimator sidecar client dials (pkg/model). */
  readonly sidecarSocket: string;
}

function read(tag: string, path: string): string {
  return readFileSync(join(keplerFixture(tag), path), "utf8");
}

function single(text: string, pattern: RegExp, what: string): string {
  const match = pattern.exec(text);
  if (match === null) throw new Error(`Kepler source: no ${what}`);
  return match[1]!;
}

export function keplerSettings(tag: string): KeplerSettings {
  const types = read(tag, "pkg/config/types.go");
  const config = read(tag, "pkg/config/config.go");
  const model = read(tag, "pkg/model/model.go");
  const constants = new Map([...types.matchAll(/^\s*(\w+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1]!, m[2]!]));
  const constant = (name: string) => {
    const value = constants.get(name);
    if (value === undefined) throw new Error(`Kepler source: no constant ${name} in pkg/config/types.go`);
    return value;
  };
  // The power sources: the defaults of the *_POWER_KEY settings, e.g. NODE_TOTAL, NODE_COMPONENTS.
  const sources = [...config.matchAll(/getConfig\("\w+_POWER_KEY", (\w+)\)/g)].map((m) => constant(m[1]!));
  // The attributes looked up per source: getModelConfigKey(powerSourceTarget, config.EstimatorEnabledKey) ...
  const attributes = [...model.matchAll(/getModelConfigKey\(\w+, config\.(\w+)\)/g)].map((m) => constant(m[1]!));
  if (sources.length === 0 || attributes.length === 0) throw new Error("Kepler source: no MODEL_CONFIG keys found");
  return {
    configDir: single(types, /(?:configDir\s*=|BaseDir\s+string\s*=)\s*"([^"]+)"/, "config folder"),
    keys: new Set([...config.matchAll(/get(?:Bool|Int)?Config\("(\w+)"/g)].map((m) => m[1]!)),
    modelConfigKeys: new Set(sources.flatMap((source) => attributes.map((attribute) => `${source}_${attribute}`))),
    sidecarSocket: single(model, /estimatorSidecarSocket\s*=\s*"([^"]+)"/, "estimatorSidecarSocket"),
  };
}

/** MODEL_CONFIG as Kepler parses it (GetModelConfigMap): whitespace-separated `key=value`, exactly one `=`. */
export function parseModelConfig(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const field of text.split(/\s+/).filter((word) => word !== "")) {
    const parts = field.split("=");
    if (parts.length === 2) values.set(parts[0]!.trim(), parts[1]!.trim());
  }
  return values;
}
