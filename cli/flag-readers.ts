// The one home for reading a command's parsed flags into typed values. Every reader throws a UsageError
// whose message names the flag and what was wrong, so a command checks all its arguments up front (before
// reading files or calling a server) and the user sees one line saying which argument to fix.
import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import { assertEnergySource, type EnergySource } from "../services/domain/energy-sources.js";
import { InvalidInputError } from "../services/domain/errors.js";
import { assertFeatureGroup, type FeatureGroupName } from "../services/domain/feature-groups.js";
import { type CommandInput, UsageError } from "./command.js";

/** A command's parsed flags (parse-flags.ts): a string per valued flag, a boolean per boolean flag. */
export type Flags = CommandInput["flags"];

/** The flag's text, or undefined when it is not given; an empty value is a usage error. */
export function textFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} needs a value`);
  return value;
}

/** The flag's text; a usage error when it is missing (`hint` says what to give instead of the flag's name). */
export function requiredFlag(flags: Flags, name: string, hint = `--${name} is required`): string {
  const value = textFlag(flags, name);
  if (value === undefined) throw new UsageError(hint);
  return value;
}

/** Comma-separated items, trimmed, empty ones dropped; [] when the flag is not given or given empty (`--x ""`). */
export function listFlag(flags: Flags, name: string): string[] {
  const value = flags[name];
  if (value !== undefined && typeof value !== "string") throw new UsageError(`--${name} needs a value`);
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** True only for a boolean flag given as `--name` (or `--name=true`). */
export function booleanFlag(flags: Flags, name: string): boolean {
  return flags[name] === true;
}

/** One of `allowed`, or `fallback` when the flag is not given. */
export function choiceFlag<T extends string>(flags: Flags, name: string, allowed: readonly T[], fallback: T): T {
  const value = textFlag(flags, name);
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, got "${value}"`);
}

/** Each item of a list flag must be one of `known` (e.g. trainer names); returns the items. */
export function knownItemsFlag(flags: Flags, name: string, known: readonly string[], what: string): string[] {
  const items = listFlag(flags, name);
  const unknown = items.filter((item) => !known.includes(item));
  if (unknown.length > 0)
    throw new UsageError(
      `--${name}: unknown ${what} ${unknown.map((item) => `"${item}"`).join(", ")} (known: ${known.join(", ")})`,
    );
  return items;
}

/** A number, or undefined when the flag is not given. `positive` refuses zero and below, `min` anything below it. */
export function numberFlag(flags: Flags, name: string, options: { positive?: boolean; min?: number } = {}): number | undefined {
  const text = textFlag(flags, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  const { positive, min } = options;
  if (!Number.isFinite(value) || (positive === true && !(value > 0)) || (min !== undefined && value < min)) {
    const kind = positive === true ? "a positive number" : min === undefined ? "a number" : `a number >= ${min}`;
    throw new UsageError(`--${name} must be ${kind}, got "${text}"`);
  }
  return value;
}

/** An integer of at least `min` (when given), or undefined when the flag is not given. */
export function integerFlag(flags: Flags, name: string, options: { min?: number } = {}): number | undefined {
  const text = textFlag(flags, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  const { min } = options;
  if (!Number.isInteger(value) || (min !== undefined && value < min)) {
    const kind =
      min === 0
        ? "a non-negative integer"
        : min === 1
          ? "a positive integer"
          : min === undefined
            ? "an integer"
            : `an integer >= ${min}`;
    throw new UsageError(`--${name} must be ${kind}, got "${text}"`);
  }
  return value;
}

/** Unix seconds or an ISO 8601 date-time (e.g. 2023-09-22T05:43:45Z); undefined when not given. */
export function timeFlag(flags: Flags, name: string): number | undefined {
  const text = textFlag(flags, name);
  if (text === undefined) return undefined;
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Date.parse(text) / 1000;
  if (!Number.isFinite(seconds)) throw new UsageError(`--${name} must be Unix seconds or an ISO 8601 time, got "${text}"`);
  return seconds;
}

/** `name=value` pairs separated by commas; [] when the flag is not given. */
export function pairsFlag(flags: Flags, name: string): Array<[name: string, value: string]> {
  return listFlag(flags, name).map((pair) => {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--${name} takes name=value pairs separated by commas, got "${pair}"`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  });
}

/** Checks that `path` (the value of --`flag`) is an existing file, before any work reads it. */
export async function assertInputFile(path: string, flag: string): Promise<string> {
  const found = await stat(path).catch(() => undefined);
  if (found === undefined) throw new UsageError(`--${flag} ${path}: no such file`);
  if (!found.isFile()) throw new UsageError(`--${flag} ${path}: not a file`);
  return path;
}

/** Checks that the folder `path` (the value of --`flag`) would be written into exists, before any work. */
export async function assertOutputFolder(path: string, flag: string): Promise<string> {
  const folder = dirname(path);
  const found = await stat(folder).catch(() => undefined);
  if (found === undefined || !found.isDirectory()) throw new UsageError(`--${flag} ${path}: no folder ${folder} to write into`);
  return path;
}

/** A required flag naming an input file that exists. */
export async function inputFileFlag(flags: Flags, name: string): Promise<string> {
  return assertInputFile(requiredFlag(flags, name), name);
}

/** An energy source (`rapl`, `intel_rapl` read as rapl-sysfs); undefined when not given, unless `required`. */
export function energySourceFlag(flags: Flags, name: string, required: true): EnergySource;
export function energySourceFlag(flags: Flags, name: string, required?: boolean): EnergySource | undefined;
export function energySourceFlag(flags: Flags, name: string, required = false): EnergySource | undefined {
  const text = required ? requiredFlag(flags, name) : textFlag(flags, name);
  return text === undefined ? undefined : asUsageError(() => assertEnergySource(text, `--${name}`));
}

/** A feature group name; undefined when not given, unless `required`. */
export function featureGroupFlag(flags: Flags, name: string, required: true): FeatureGroupName;
export function featureGroupFlag(flags: Flags, name: string, required?: boolean): FeatureGroupName | undefined;
export function featureGroupFlag(flags: Flags, name: string, required = false): FeatureGroupName | undefined {
  const text = required ? requiredFlag(flags, name) : textFlag(flags, name);
  return text === undefined ? undefined : asUsageError(() => assertFeatureGroup(text, `--${name}`));
}

// The domain's name checks say what is known; as a flag's mistake they are usage errors.
function asUsageError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof InvalidInputError) throw new UsageError(error.message);
    throw error;
  }
}
