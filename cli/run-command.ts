// Runs one command: parse its flags, print its help, map a UsageError to exit code 2 and any other
// error to a one-line message and exit code 1 (a failed call to a server as its status and details, or,
// when nothing answers at the server's address, the line saying how to start it). Shared by
// `kepler-model` (cli/main.ts) and the stand-alone exporter (cli/exporter-main.ts).
import { ClientError, Status } from "nice-grpc";
import { type Command, type CommandInput, UsageError } from "./command.js";
import { formatFlags, parseFlags } from "./parse-flags.js";
import { addressAnswers, nothingAnswersMessage, serverAddress, serviceOfPath } from "./server-address.js";

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
  let flags: CommandInput["flags"] = {};
  try {
    const parsed = parseFlags(argv, [...command.flags, HELP_FLAG]);
    flags = parsed.flags;
    if (flags.help === true) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await command.run({ flags, positionals: parsed.positionals, ...io });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`kepler-model ${command.name}: ${error.message} (kepler-model ${command.name} --help lists the flags)\n`);
      return 2;
    }
    io.stderr.write(`kepler-model ${command.name}: ${await failureLine(error, { flags, env: io.env })}\n`);
    return 1;
  }
}

/** One line for a failure: a server's status and details, or how to start a server that is not there. */
async function failureLine(error: unknown, input: Pick<CommandInput, "flags" | "env">): Promise<string> {
  if (!(error instanceof ClientError)) return error instanceof Error ? error.message : String(error);
  const service = serviceOfPath(error.path);
  if (error.code === Status.UNAVAILABLE && service !== undefined) {
    const address = serverAddress(service, input);
    if (!(await addressAnswers(address))) return nothingAnswersMessage(service, address);
  }
  return `${Status[error.code]}: ${error.details}`;
}

/** A command's usage, summary and flags. */
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
