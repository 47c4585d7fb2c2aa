import { type FlagSpec, UsageError } from "./command.js";

/**
 * Parses `--name value`, `--name=value`, boolean `--name` and `--no-name` (false) against the declared flags;
 * an alias is stored under the flag's own name.
 */
export function parseFlags(
  args: readonly string[],
  specs: readonly FlagSpec[],
): { flags: Record<string, string | boolean>; positionals: string[] } {
  const byName = new Map(specs.flatMap((spec) => [spec.name, ...(spec.aliases ?? [])].map((name) => [name, spec] as const)));
  const flags: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const [name, inlineValue] = splitOnce(arg.slice(2));
    const negated = name.startsWith("no-") && !byName.has(name) && byName.get(name.slice(3))?.boolean === true;
    const spec = byName.get(negated ? name.slice(3) : name);
    if (spec === undefined) throw new UsageError(`unknown flag --${name}`);
    if (spec.boolean) {
      if (negated && inlineValue !== undefined) throw new UsageError(`flag --${name} takes no value`);
      flags[spec.name] = negated ? false : inlineValue === undefined ? true : inlineValue !== "false";
      continue;
    }
    const value = inlineValue ?? args[++i];
    if (value === undefined) throw new UsageError(`flag --${name} needs a value`);
    flags[spec.name] = value;
  }
  return { flags, positionals };
}

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf("=");
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** Renders a command's flags for --help. */
export function formatFlags(specs: readonly FlagSpec[]): string[] {
  return specs.map((spec) => {
    const left = spec.boolean ? `--${spec.name}` : `--${spec.name} <${spec.valueName ?? "value"}>`;
    const aliases = spec.aliases?.length ? ` (also ${spec.aliases.map((alias) => `--${alias}`).join(", ")})` : "";
    return `  ${left.padEnd(34)} ${spec.description}${aliases}`;
  });
}
