// The generated parts of the docs: the configuration and command tables in README.md (from the config
// schemas and the command declarations) and docs/cli.md (from the command declarations), so the docs cannot drift from the code. `npm run docs`
// rewrites them; cli/reference-docs.test.ts fails when they are stale.
import type { ConfigKey } from "../services/kit/config/config-schema.js";
import { SERVICE_NAMES } from "../services/kit/config/service-addresses.js";
import { meshConfigSchema } from "../services/mesh/default-models-config.js";
import { SERVICE_LAUNCHERS } from "../services/mesh/service-launchers.js";
import type { Command } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { serveConfigKeys } from "./commands/serve.js";

/** Marks a generated block inside a Markdown file: everything between the two lines is replaced. */
export const generatedBlock = (name: string) => ({
  begin: `<!-- generated:${name} (npm run docs) -->`,
  end: `<!-- end generated:${name} -->`,
});

/** Text for a Markdown table cell: pipes escaped, and `<name>` kept visible (not read as an HTML tag). */
const cell = (text: string) =>
  text
    .replaceAll("|", "\\|")
    .split("`")
    .map((part, i) => (i % 2 === 0 ? part.replaceAll("<", "&lt;") : part))
    .join("`");

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- keys of every value type.
function formatDefault(key: ConfigKey<any>): string {
  if (Array.isArray(key.default)) return key.default.length === 0 ? "(none)" : `\`${key.default.join(",")}\``;
  if (key.default === "") return "(empty)";
  return `\`${String(key.default)}\``;
}

/** Which services read a key, by flag: every service, the launcher, or the ones listed. */
function readersOf(flag: string): string {
  if (Object.values(meshConfigSchema).some((key) => key.flag === flag)) return "serve (all-in-one)";
  const readers = SERVICE_NAMES.filter((name) =>
    Object.values(SERVICE_LAUNCHERS[name].configSchema).some((key) => key.flag === flag),
  );
  if (readers.length === 0 || readers.length === SERVICE_NAMES.length) return "all";
  return readers.join(", ");
}

/** The configuration reference: every key `kepler-model serve` reads, one Markdown table row each. */
export function renderConfigurationTable(): string {
  const rows = serveConfigKeys().map(
    (key) => `| \`--${key.flag}\` | \`${key.env}\` | ${formatDefault(key)} | ${readersOf(key.flag)} | ${cell(key.description)} |`,
  );
  return ["| flag | environment | default | read by | meaning |", "|---|---|---|---|---|", ...rows].join("\n");
}

function renderCommand(command: Command): string[] {
  const flags = command.flags.map((flag) => {
    const name = flag.boolean ? `--${flag.name}` : `--${flag.name} <${flag.valueName ?? "value"}>`;
    const aliases = flag.aliases?.length ? ` (also ${flag.aliases.map((alias) => `\`--${alias}\``).join(", ")})` : "";
    return `| \`${name.replaceAll("|", "\\|")}\` | ${cell(flag.description)}${aliases} |`;
  });
  return [
    `## kepler-model ${command.name}`,
    "",
    command.summary,
    "",
    "```",
    `kepler-model ${command.name} ${command.usage}`,
    "```",
    "",
    "| flag | meaning |",
    "|---|---|",
    ...flags,
    "",
  ];
}

/** The README's command list: one row per command, linking to its section of docs/cli.md. */
export function renderCommandTable(): string {
  return [
    "| command | does |",
    "|---|---|",
    ...COMMANDS.map(
      (command) => `| [\`${command.name}\`](docs/cli.md#kepler-model-${command.name}) | ${cell(command.summary)} |`,
    ),
  ].join("\n");
}

/** docs/cli.md: every command with its usage and flags, as `--help` prints them. */
export function renderCliReference(): string {
  return [
    "# The `kepler-model` command",
    "",
    "Generated from the command declarations in `cli/commands/` by `npm run docs`; `kepler-model <command> --help`",
    "prints the same. Flags of the same meaning have the same name in every command (`--source`, `--feature-group`,",
    "`--output-type`, `--pipeline`, `--node-type`, `--prometheus`, `--input`, `--out`, `--<service>-address`); a",
    "flag that calls a service also reads its `KEPLER_MODEL_<SERVICE>_ADDRESS` variable. Boolean flags take",
    "`--no-<flag>` to turn them off. The settings of `serve` are in the README's configuration reference.",
    "",
    "Exit codes: 0 when the command did what was asked; 2 for a command-line mistake (a missing or malformed flag, an",
    "unknown trainer, source or feature group, an input file that is not there): every argument is checked before",
    "anything is read, called or written, and one line names the problem. 1 when the work fails or finds nothing: one",
    "line says why (the input's flaw, a server's status and details, or `nothing answers at <address>: start it with",
    "`npm start` or set --<service>-address` when no server listens there). `--json`, where listed, prints the same",
    "data as JSON. Flags are read by one module, `cli/flag-readers.ts`.",
    "",
    "| command | does |",
    "|---|---|",
    ...COMMANDS.map((command) => `| [\`${command.name}\`](#kepler-model-${command.name}) | ${cell(command.summary)} |`),
    "",
    ...COMMANDS.flatMap(renderCommand),
  ].join("\n");
}

/** Replaces the generated block `name` in `text`; throws when the markers are missing. */
export function replaceGeneratedBlock(text: string, name: string, content: string): string {
  const { begin, end } = generatedBlock(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`missing "${begin}" ... "${end}"`);
  return `${text.slice(0, from + begin.length)}\n${content}\n${text.slice(to)}`;
}
