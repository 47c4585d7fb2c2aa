import { PassThrough } from "node:stream";
import { runCli } from "../../cli/main.js";

/** What a `kepler-model` invocation printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output; `stderrIsTty` makes progress output take its terminal form. */
export async function runCliCaptured(argv: readonly string[], options: { stderrIsTty?: boolean } = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: options.stderrIsTty === true });
  let out = "";
  let err = "";
  stdout.on("data", (data: Buffer) => {
    out += data.toString();
  });
  stderr.on("data", (data: Buffer) => {
    err += data.toString();
  });
  const code = await runCli(argv, { stdout, stderr, env: {} });
  return { code, stdout: out, stderr: err };
}
