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

/**
 * Trains AbsPower models from the bundled coremark recording with `kepler-model train` into `modelPath`,
 * one call per source and feature group; throws with the CLI's stderr when one fails.
 */
export async function trainCoremarkWithCli(
  modelPath: string,
  pipeline: string,
  options: { sources: readonly string[]; featureGroups: readonly string[]; trainers: readonly string[]; input: string },
): Promise<void> {
  for (const source of options.sources) {
    for (const group of options.featureGroups) {
      const argv = ["train", "--input", options.input, "--source", source, "--feature-group", group];
      const trained = await runCliCaptured([
        ...argv,
        "--trainers",
        options.trainers.join(","),
        "--pipeline",
        pipeline,
        "--model-path",
        modelPath,
      ]);
      if (trained.code !== 0) throw new Error(`kepler-model ${argv.join(" ")} failed: ${trained.stderr}`);
    }
  }
}
