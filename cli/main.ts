import { COMMANDS } from "./commands/index.js";
import { runCommand } from "./run-command.js";
import { versionLine } from "../services/domain/build-info.js";

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
  if (name === "--version" || name === "-V") {
    io.stdout.write(`${versionLine()}\n`);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    io.stderr.write(`kepler-model: unknown command "${name}" (commands: ${COMMANDS.map((c) => c.name).join(", ")})\n`);
    return 2;
  }
  return runCommand(command, rest, io);
}

function topLevelHelp(): string {
  const lines = [
    "kepler-model: train Kepler power models from Prometheus metrics and serve them over gRPC.",
    "",
    "Usage: kepler-model <command> [flags]   (kepler-model <command> --help for its flags; kepler-model --version)",
    "",
    "Commands:",
    ...COMMANDS.map((command) => `  ${command.name.padEnd(12)} ${command.summary}`),
    "",
  ];
  return lines.join("\n");
}
