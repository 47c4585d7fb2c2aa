// The Tekton Tasks and Pipelines as resources: @ibm/tekton-lint finds no problem, the Pipelines take the
// reference's parameters and pass each one on to a Task step, the machine spec flows from its collecting
// Task to the training Tasks and the push, and the example PipelineRuns fit the Pipelines they run.
import { execFile } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/child-process.js";
import type { Json } from "./support/rendered-manifests.js";
import { validateWithKubernetesModels } from "./support/rendered-manifests.js";
import { useTektonHarness } from "./support/tekton-harness.js";
import { readTektonExamples } from "./support/tekton-script.js";

const execFileAsync = promisify(execFile);
const { resources, tempDir } = useTektonHarness();

describe("Tekton resources", () => {
  it("pass @ibm/tekton-lint with no error and no warning", async () => {
    const lint = async (dir: string): Promise<Json[]> => {
      const cache = tempDir("tekton-lint-cache-");
      const { stdout } = await execFileAsync(
        process.execPath,
        [join(REPO_ROOT, "node_modules/@ibm/tekton-lint/dist/lint.js"), "--config", dir, "--format", "json", `${dir}/**/*.yaml`],
        { cwd: REPO_ROOT, env: { ...process.env, TL_CACHE_DIR: cache } },
      ).catch((error) => error);
      return JSON.parse(stdout);
    };
    expect(await lint("deploy/tekton")).toEqual([]);

    // The linter really checks: a Pipeline passing a parameter its Task does not declare is an error.
    const broken = tempDir("tekton-broken-");
    cpSync(join(REPO_ROOT, "deploy/tekton"), broken, { recursive: true });
    const pipeline = join(broken, "pipelines/single-train.yaml");
    writeFileSync(
      pipeline,
      readFileSync(pipeline, "utf8").replace(
        "- name: OUTPUT_NAME\n          value: idle",
        "- name: OUTPUT_FILE\n          value: idle",
      ),
    );
    const problems = await lint(broken);
    expect(problems.filter((problem) => problem.level === "error").map((problem) => problem.rule)).toContain("no-extra-param");
  });

  it("have pipelines with the reference's parameters, wired to Tasks that exist", () => {
    const pipelines = resources().filter((resource) => resource.kind === "Pipeline");
    const params = Object.fromEntries(
      pipelines.map((p) => [p.metadata.name, (p.spec.params as Json[]).map((param) => param.name).sort()]),
    );
    const shared = [
      "PIPELINE_NAME",
      "ENERGY_SOURCE",
      "IDLE_COLLECT_INTERVAL",
      "STRESS_BREAK_INTERVAL",
      "STRESS_TIMEOUT",
      "STRESS_ARGS",
    ];
    const more = [
      "CPU_FREQUENCY_ENABLED",
      "EXTRACTOR",
      "ISOLATOR",
      "THIRDPARTY_METRICS",
      "ABS_PIPELINE_NAME",
      "COS_SECRET_NAME",
      "MACHINE_ID",
    ];
    const ours = ["NODE_TYPE", "PROMETHEUS_URL"];
    expect(params["kepler-model-single-train"]).toEqual(
      [...shared, ...more, ...ours, "OUTPUT_TYPE", "FEATURE_GROUP", "TRAINERS"].sort(),
    );
    expect(params["kepler-model-complete-train"]).toEqual([...shared, ...more, ...ours, "ABS_TRAINERS", "DYN_TRAINERS"].sort());
    const taskNames = new Set(resources().filter((r) => r.kind === "Task").map((r) => r.metadata.name));
    for (const pipeline of pipelines) {
      for (const pipelineTask of [...pipeline.spec.tasks, ...(pipeline.spec.finally ?? [])]) {
        expect(taskNames, `${pipeline.metadata.name}: ${pipelineTask.name}`).toContain(pipelineTask.taskRef.name);
      }
    }
  });
});

describe("Tekton parameters and examples", () => {
  it("every Pipeline parameter reaches a Task, and every Task parameter reaches its step", () => {
    for (const pipeline of resources().filter((resource) => resource.kind === "Pipeline")) {
      const wiring = JSON.stringify([pipeline.spec.tasks, pipeline.spec.finally ?? []]);
      for (const param of pipeline.spec.params as Json[]) {
        expect(wiring, `${pipeline.metadata.name} ${param.name}`).toContain(`$(params.${param.name}`);
      }
    }
    for (const t of resources().filter((resource) => resource.kind === "Task")) {
      const steps = JSON.stringify(t.spec.steps);
      for (const param of t.spec.params as Json[]) {
        expect(steps, `${t.metadata.name} ${param.name}`).toContain(`$(params.${param.name}`);
      }
    }
  });

  it("the machine spec is collected first and passed to every training Task and the push", () => {
    for (const pipeline of resources().filter((resource) => resource.kind === "Pipeline")) {
      const tasks = [...pipeline.spec.tasks, ...(pipeline.spec.finally ?? [])] as Json[];
      const collect = tasks.find((candidate) => candidate.taskRef.name === "kepler-model-collect-machine-spec");
      expect(collect?.params, pipeline.metadata.name).toEqual([{ name: "MACHINE_ID", value: "$(params.MACHINE_ID)" }]);
      const value = (pipelineTask: Json, name: string) =>
        (pipelineTask.params as Json[]).find((param) => param.name === name)?.value;
      const training = tasks.filter((candidate) => candidate.taskRef.name === "kepler-model-run-pipeline");
      expect(training.length).toBeGreaterThan(0);
      for (const train of training) {
        expect(value(train, "MACHINE_SPEC")).toBe(`$(tasks.${collect.name}.results.machine-spec)`);
        expect(value(train, "MACHINE_ID")).toBe(`$(tasks.${collect.name}.results.machine-id)`);
      }
      const push = tasks.find((candidate) => candidate.taskRef.name === "kepler-model-s3-push");
      expect(value(push, "MACHINE_ID")).toBe(`$(tasks.${collect.name}.results.machine-id)`);
    }
  });

  it("the example PipelineRuns give only declared parameters, every required one, on the example volume", async () => {
    const examples = readTektonExamples();
    expect(examples.map(({ file, object }) => `${file} ${object.kind}`)).toEqual([
      "complete-train.yaml PipelineRun",
      "pvc/hostpath.yaml PersistentVolume",
      "pvc/hostpath.yaml PersistentVolumeClaim",
      "single-train/abs-power.yaml PipelineRun",
      "single-train/default.yaml PipelineRun",
      "single-train/dyn-power.yaml PipelineRun",
    ]);
    const volume = examples.find(({ object }) => object.kind === "PersistentVolume")!.object;
    const claim = examples.find(({ object }) => object.kind === "PersistentVolumeClaim")!.object;
    await validateWithKubernetesModels(volume);
    await validateWithKubernetesModels(claim);
    expect(claim.spec.volumeName).toBe(volume.metadata.name);
    expect(claim.spec.storageClassName).toBe(volume.spec.storageClassName);

    const outputTypes: Record<string, string> = {};
    for (const { file, object: run } of examples.filter(({ object }) => object.kind === "PipelineRun")) {
      const pipeline = resources().find((r) => r.kind === "Pipeline" && r.metadata.name === run.spec.pipelineRef.name);
      expect(pipeline, `${file} pipelineRef`).toBeDefined();
      const declared = new Map((pipeline!.spec.params as Json[]).map((param) => [param.name, param]));
      const given = new Map((run.spec.params as Json[]).map((param) => [param.name, param.value]));
      for (const [name, value] of given) {
        expect(declared.has(name), `${file} ${name} is declared`).toBe(true);
        const isArray = declared.get(name).type === "array";
        expect(isArray ? Array.isArray(value) : typeof value === "string", `${file} ${name} type`).toBe(true);
      }
      for (const [name, param] of declared) {
        if (param.default === undefined) expect(given.has(name), `${file} gives ${name}`).toBe(true);
      }
      expect(run.spec.workspaces, file).toEqual([{ name: "mnt", persistentVolumeClaim: { claimName: claim.metadata.name } }]);
      if (given.has("OUTPUT_TYPE")) outputTypes[file] = given.get("OUTPUT_TYPE");
      if (given.has("STRESS_ARGS")) expect(given.get("STRESS_ARGS"), file).toEqual(["cpu;none;none"]);
    }
    expect(outputTypes).toEqual({
      "single-train/abs-power.yaml": "AbsPower",
      "single-train/default.yaml": "AbsPower",
      "single-train/dyn-power.yaml": "DynPower",
    });
  });
});