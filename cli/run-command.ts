// Runs one command: parse its flags, print its help, map a UsageError to exit code 2 and any other
// error to a one-line message and exit code 1. Shared by `kepler-model` (cli/main.ts) and the
// stand-alone exporter (cli/exporter-main.ts).
import { type Command, UsageError } from "./command.js";
import { formatFlags, parseFlags } from "./parse-flags.js";

const HELP_FLAG = { name: "help", description: "Show help for this command.", boolean: true } as const;

/** Where a command writes and what environment it reads. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

const processIo: CommandIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };

/** Runs `command` with `argv` (its flags and positionals) and returns the exit code. */
export async function runCommand(command: Command, argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  try {
    const { flags, positionals } = parseFlags(argv, [...command.flags, HELP_FLAG]);
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

/** A command's usage, summary and flags. */
export function commandHelp(command: Command): string {
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
