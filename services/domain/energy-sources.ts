// Energy sources and their power components (reference PowerSourceMap, spec §2).
import { InvalidInputError } from "./errors.js";

export const ENERGY_SOURCE_COMPONENTS = {
  "rapl-sysfs": ["package", "core", "uncore", "dram"],
  "rapl-msr": ["package", "core", "uncore", "dram"],
  acpi: ["platform"],
  hmc: ["platform"],
  redfish: ["platform"],
  trained_power_model: ["package", "core", "uncore", "dram"],
} as const satisfies Record<string, readonly string[]>;

export type EnergySource = keyof typeof ENERGY_SOURCE_COMPONENTS;

// Historical spellings still found in recorded data and older models.
const ALIASES: Record<string, EnergySource> = { rapl: "rapl-sysfs", intel_rapl: "rapl-sysfs" };

/** Normalises a source name (aliases `rapl`, `intel_rapl` -> `rapl-sysfs`); InvalidInputError if unknown. */
export function assertEnergySource(name: string, field = "energy_source"): EnergySource {
  if (name in ENERGY_SOURCE_COMPONENTS) return name as EnergySource;
  const alias = ALIASES[name];
  if (alias !== undefined) return alias;
  throw new InvalidInputError(
    field,
    `unknown energy source "${name}" (known: ${Object.keys(ENERGY_SOURCE_COMPONENTS).join(", ")}; aliases: rapl, intel_rapl)`,
  );
}

/**
 * The canonical source a node-energy series' `source` label names, or undefined for a source we do not
 * model (e.g. `nvidia`). Recorded data from before 2024-08 labels RAPL as `rapl` or `intel_rapl`; those
 * series are read as `rapl-sysfs`, so `--source rapl-sysfs` extracts them (the reference needed the
 * labels rewritten first; see docs/deviations.md, "Extractor").
 */
export function energySourceOfLabel(label: string): EnergySource | undefined {
  if (label in ENERGY_SOURCE_COMPONENTS) return label as EnergySource;
  return ALIASES[label];
}

/** The reference's convert_enery_source for requests: empty or any name containing "rapl" -> rapl-sysfs. */
export function normalizeRequestedSource(name: string | undefined, field = "energy_source"): EnergySource {
  if (name === undefined || name === "" || name.includes("rapl")) return "rapl-sysfs";
  return assertEnergySource(name, field);
}

/** The components measured by a source, in the reference's order. */
export function componentsOf(source: EnergySource): readonly string[] {
  return ENERGY_SOURCE_COMPONENTS[source];
}

/** Power column name of a component, e.g. `package_power`. */
export function powerColumn(component: string): string {
  return `${component}_power`;
}
