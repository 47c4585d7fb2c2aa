/** A flag a command accepts. Boolean flags take no value. */
export interface FlagSpec {
  readonly name: string;
  readonly description: string;
  readonly boolean?: boolean;
  readonly valueName?: string;
  /** Other names accepted for this flag (kept for compatibility); the parsed value is stored under `name`. */
  readonly aliases?: readonly string[];
}

/** What a command gets: its parsed flags, positional arguments and output streams. */
export interface CommandInput {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
}

/** One `kepler-model <name>` subcommand, declared in its own file under cli/commands/. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Usage line after `kepler-model <name>`. */
  readonly usage: string;
  readonly flags: readonly FlagSpec[];
  /** Extra help text (e.g. configuration keys). */
  readonly details?: () => string[];
  /** Returns the process exit code. */
  run(input: CommandInput): Promise<number>;
}

/** A command-line mistake: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
