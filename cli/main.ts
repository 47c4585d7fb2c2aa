import { type Command, UsageError } from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { formatFlags, parseFlags } from "./parse-flags.js";

const HELP_FLAG = { name: "help", description: "Show help for this command.", boolean: true } as const;

/** Runs `kepler-model <command> [flags]` and returns the exit code. */
export async function runCli(
  argv: readonly string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv } = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  },
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(topLevelHelp());
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    io.stderr.write(`kepler-model: unknown command "${name}"\n\n${topLevelHelp()}`);
    return 2;
  }
  try {
    const { flags, positionals } = parseFlags(rest, [...command.flags, HELP_FLAG]);
    if (flags.help === true) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await command.run({ flags, positionals, ...io });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`kepler-model ${command.name}: ${error.message}\n\n${commandHelp(command)}`);
      return 2;
    }
    io.stderr.write(`kepler-model ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function topLevelHelp(): string {
  const lines = [
    "kepler-model: train Kepler power models from Prometheus metrics and serve them over gRPC.",
    "",
    "Usage: kepler-model <command> [flags]   (kepler-model <command> --help for its flags)",
    "",
    "Commands:",
    ...COMMANDS.map((command) => `  ${command.name.padEnd(12)} ${command.summary}`),
    "",
  ];
  return lines.join("\n");
}

function commandHelp(command: Command): string {
  const lines = [
    `Usage: kepler-model ${command.name} ${command.usage}`,
    "",
    command.summary,
    "",
    "Flags:",
    ...formatFlags([...command.flags, HELP_FLAG]),
    ...(command.details ? ["", ...command.details()] : []),
    "",
  ];
  return lines.join("\n");
}
