import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../support/child-process.js";
import { type Json, type K8sObject, parseYamlDocuments } from "./rendered-manifests.js";

const run = promisify(execFile);

/** Every Task and Pipeline under deploy/tekton. */
export function readTektonResources(): K8sObject[] {
  const dir = join(REPO_ROOT, "deploy/tekton");
  return ["tasks", "pipelines"].flatMap((sub) =>
    readdirSync(join(dir, sub))
      .filter((file) => file.endsWith(".yaml"))
      .flatMap((file) => parseYamlDocuments(readFileSync(join(dir, sub, file), "utf8"), `${sub}/${file}`)),
  );
}

/** The example PipelineRuns and the volume under deploy/tekton/examples, each with its file name. */
export function readTektonExamples(): { file: string; object: K8sObject }[] {
  const dir = join(REPO_ROOT, "deploy/tekton/examples");
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .flatMap((file) => parseYamlDocuments(readFileSync(join(dir, file), "utf8"), file).map((object) => ({ file, object })));
}

/** What Tekton would substitute into one step: parameter values, result files and the workspace. */
export interface StepContext {
  readonly params: Readonly<Record<string, string>>;
  /** Values of array parameters, expanded where an argument is exactly `$(params.NAME[*])`. */
  readonly arrays?: Readonly<Record<string, readonly string[]>>;
  readonly resultsDir: string;
  readonly workspaceDir: string;
}

/** Replaces Tekton's `$(params.x)`, `$(results.x.path)`, `$(workspaces.x.path|bound)`; shell `$(...)` stays. */
export function substituteTekton(text: string, context: StepContext): string {
  return text.replace(/\$\((params|results|workspaces)\.([A-Za-z0-9_-]+)(?:\.(path|bound))?\)/g, (whole, kind, name, field) => {
    if (kind === "params") {
      const value = context.params[name];
      if (value === undefined) throw new Error(`${whole}: no value`);
      return value;
    }
    if (kind === "results" && field === "path") return join(context.resultsDir, name);
    if (kind === "workspaces" && field === "path") return context.workspaceDir;
    if (kind === "workspaces" && field === "bound") return "true";
    throw new Error(`unsupported Tekton reference ${whole}`);
  });
}

/** The string parameter values a Task run gets: its defaults overridden by `given`. */
export function taskParams(task: K8sObject, given: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const param of task.spec.params as Json[]) {
    if (param.type === "array") continue;
    const value = given[param.name] ?? param.default;
    if (value === undefined) throw new Error(`${task.metadata.name}: param ${param.name} needs a value`);
    params[param.name] = String(value);
  }
  return params;
}

/**
 * Runs one step's script under /bin/sh as Tekton would (substituted script, env from the step), with a
 * `grpcurl` stand-in first on PATH that records its arguments and prints `grpcurlOutput`.
 */
export async function runStepScript(
  task: K8sObject,
  stepName: string,
  context: StepContext & {
    readonly scratchDir: string;
    readonly grpcurlOutput: string;
    /** Values of the secret keys the step's env reads (secretKeyRef.key -> value); unset ones are left out. */
    readonly secrets?: Readonly<Record<string, string>>;
  },
): Promise<{ stdout: string; grpcurlArgs: string[] }> {
  const step = (task.spec.steps as Json[]).find((candidate) => candidate.name === stepName);
  if (step === undefined) throw new Error(`${task.metadata.name} has no step ${stepName}`);
  const binDir = join(context.scratchDir, "bin");
  mkdirSync(binDir, { recursive: true });
  mkdirSync(context.resultsDir, { recursive: true });
  const argsFile = join(context.scratchDir, "grpcurl-args");
  const outputFile = join(context.scratchDir, "grpcurl-output");
  writeFileSync(outputFile, context.grpcurlOutput);
  writeFileSync(
    join(binDir, "grpcurl"),
    `#!/bin/sh\nfor arg in "$@"; do printf '%s\\n' "$arg"; done > '${argsFile}'\ncat '${outputFile}'\n`,
  );
  chmodSync(join(binDir, "grpcurl"), 0o755);
  // Our CLI, as the image has it on PATH (Dockerfile).
  writeFileSync(join(binDir, "kepler-model"), `#!/bin/sh\nexec '${process.execPath}' '${join(REPO_ROOT, "bin/kepler-model.js")}' "$@"\n`);
  chmodSync(join(binDir, "kepler-model"), 0o755);
  const env: Record<string, string> = { PATH: `${binDir}:${process.env.PATH}`, HOME: context.scratchDir };
  for (const variable of (step.env ?? []) as Json[]) {
    if (variable.valueFrom !== undefined) {
      const secretValue = context.secrets?.[variable.valueFrom.secretKeyRef?.key];
      if (secretValue !== undefined) env[variable.name] = secretValue;
      continue;
    }
    env[variable.name] = substituteTekton(String(variable.value), context);
  }
  const script = join(context.scratchDir, `${stepName}.sh`);
  writeFileSync(script, substituteTekton(step.script, context));
  const args = ((step.args ?? []) as string[]).flatMap((arg) => {
    const array = /^\$\(params\.([A-Za-z0-9_-]+)\[\*\]\)$/.exec(arg);
    if (array === null) return [substituteTekton(arg, context)];
    const values = context.arrays?.[array[1] ?? ""];
    if (values === undefined) throw new Error(`${arg}: no array value`);
    return [...values];
  });
  const { stdout } = await run("/bin/sh", [script, ...args], { env, cwd: context.scratchDir });
  const grpcurlArgs = existsSync(argsFile) ? readFileSync(argsFile, "utf8").split("\n").slice(0, -1) : [];
  return { stdout, grpcurlArgs };
}
