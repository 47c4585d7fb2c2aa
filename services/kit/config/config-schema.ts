import { InvalidInputError } from "../../domain/errors.js";

/** One configuration key: its type, default, environment variable, flag and a one-line description. */
export interface ConfigKey<T> {
  readonly type: "string" | "integer" | "boolean" | "list";
  readonly default: T;
  readonly env: string;
  readonly flag: string;
  readonly description: string;
  /** Optional extra check; returns a reason when the value is not acceptable. */
  readonly check?: (value: T) => string | undefined;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- keys of any value type; ConfigOf recovers each type.
export type ConfigSchema = Record<string, ConfigKey<any>>;
export type ConfigOf<S extends ConfigSchema> = { -readonly [K in keyof S]: S[K]["default"] };

/** A config whose keys K may be left out (by library callers and tests): their schema defaults then apply. */
export type PartlyDefaulted<C, K extends keyof C> = Omit<C, K> & Partial<Pick<C, K>>;

/** Flags as parsed from the command line: `--model-path x` -> { "model-path": "x" }. */
export type Flags = Readonly<Record<string, string | boolean | undefined>>;

/** Reads a config: flag beats environment beats default; each value is parsed and checked once, errors name the key. */
export function readConfig<S extends ConfigSchema>(schema: S, env: NodeJS.ProcessEnv = {}, flags: Flags = {}): ConfigOf<S> {
  const config = {} as Record<string, unknown>;
  for (const [name, key] of Object.entries(schema)) {
    const flagValue = flags[key.flag];
    const raw = flagValue !== undefined ? flagValue : env[key.env];
    const source = flagValue !== undefined ? `--${key.flag}` : key.env;
    const value = raw === undefined || raw === "" ? key.default : parseValue(key, raw, source);
    const problem = key.check?.(value);
    if (problem !== undefined) throw new InvalidInputError(source, problem);
    config[name] = value;
  }
  return config as ConfigOf<S>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ConfigSchema.
function parseValue(key: ConfigKey<any>, raw: string | boolean, source: string): unknown {
  const text = String(raw);
  switch (key.type) {
    case "string":
      return text;
    case "integer": {
      const value = Number(text);
      if (!Number.isInteger(value)) throw new InvalidInputError(source, `expected an integer, got "${text}"`);
      return value;
    }
    case "boolean":
      if (raw === true || text === "true" || text === "1") return true;
      if (raw === false || text === "false" || text === "0") return false;
      throw new InvalidInputError(source, `expected true or false, got "${text}"`);
    case "list":
      return text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "");
  }
}

/** A port check for ConfigKey.check: 0 (any free port) to 65535. */
export function checkPort(value: unknown): string | undefined {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535
    ? undefined
    : `expected a port 0-65535, got ${value}`;
}
