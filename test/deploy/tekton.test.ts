// The Tekton Tasks and Pipelines: @ibm/tekton-lint finds no problem, and every Task's script is run here
// under /bin/sh as Tekton would run it. The grpcurl calls are checked against the real contracts (the
// descriptor set the build produces): the method exists and the request JSON decodes strictly (an unknown
// field or enum name fails, as it fails in grpcurl). grpcurl itself is not installed here, so a stand-in
// records its arguments and prints responses built from the real response types in grpcurl's format.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type DescMethod, create, createFileRegistry, fromBinary, fromJson, type Registry, toJson } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  PipelineServiceDefinition,
  RunPipelineRequest,
  type RunPipelineRequest as RunPipelineRequestMessage,
} from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { startGrpcServer } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createZip } from "../../services/models/zip-writer.js";
import { runCliCaptured } from "../support/run-cli.js";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";
import type { Json, K8sObject } from "./support/rendered-manifests.js";
import { validateWithKubernetesModels } from "./support/rendered-manifests.js";
import { readTektonExamples, readTektonResources, runStepScript, taskParams } from "./support/tekton-script.js";

const execFileAsync = promisify(execFile);

let registry: Registry;
let resources: K8sObject[];
const scratchDirs: string[] = [];

beforeAll(() => {
  const bytes = readFileSync(join(REPO_ROOT, "services/generated/descriptor-set.binpb"));
  registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));
  resources = readTektonResources();
});
afterEach(() => {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): { scratchDir: string; resultsDir: string; workspaceDir: string } {
  const scratchDir = mkdtempSync(join(tmpdir(), "tekton-step-"));
  scratchDirs.push(scratchDir);
  return { scratchDir, resultsDir: join(scratchDir, "results"), workspaceDir: join(scratchDir, "workspace") };
}

function task(name: string): K8sObject {
  const found = resources.find((resource) => resource.kind === "Task" && resource.metadata.name === name);
  if (found === undefined) throw new Error(`no Task ${name}`);
  return found;
}

/** The RPC a grpcurl argument list calls, looked up in the descriptor set. */
function methodOf(args: readonly string[]): DescMethod {
  const path = args.find((arg) => /^kepler\.model\.v1\.\w+\/\w+$/.test(arg));
  if (path === undefined) throw new Error(`no method in grpcurl ${args.join(" ")}`);
  const [serviceName, methodName] = path.split("/") as [string, string];
  const method = registry.getService(serviceName)?.methods.find((candidate) => candidate.name === methodName);
  if (method === undefined) throw new Error(`${path} is not in the contracts`);
  return method;
}

/** Decodes the `-d` request of a grpcurl call strictly and returns it as canonical JSON. */
function requestOf(args: readonly string[]): Json {
  const data = args[args.indexOf("-d") + 1];
  const method = methodOf(args);
  return toJson(method.input, fromJson(method.input, JSON.parse(data ?? ""), { registry }), { registry });
}

/** Response messages as grpcurl prints them over reflection: indented JSON, proto field names. */
function grpcurlOutput(method: DescMethod, messages: Json[]): string {
  return messages
    .map(
      (init) =>
        `${JSON.stringify(toJson(method.output, create(method.output, init), { registry, useProtoFieldName: true }), null, 2)}\n`,
    )
    .join("");
}

function rpc(service: string, name: string): DescMethod {
  return registry.getService(`kepler.model.v1.${service}`)!.methods.find((method) => method.name === name)!;
}

describe("Tekton resources", () => {
  it("pass @ibm/tekton-lint with no error and no warning", async () => {
    const lint = async (dir: string): Promise<Json[]> => {
      const cache = mkdtempSync(join(tmpdir(), "tekton-lint-cache-"));
      scratchDirs.push(cache);
      const { stdout } = await execFileAsync(
        process.execPath,
        [join(REPO_ROOT, "node_modules/@ibm/tekton-lint/dist/lint.js"), "--config", dir, "--format", "json", `${dir}/**/*.yaml`],
        { cwd: REPO_ROOT, env: { ...process.env, TL_CACHE_DIR: cache } },
      ).catch((error) => error);
      return JSON.parse(stdout);
    };
    expect(await lint("deploy/tekton")).toEqual([]);

    // The linter really checks: a Pipeline passing a parameter its Task does not declare is an error.
    const broken = mkdtempSync(join(tmpdir(), "tekton-broken-"));
    scratchDirs.push(broken);
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
    const pipelines = resources.filter((resource) => resource.kind === "Pipeline");
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
    const taskNames = new Set(resources.filter((r) => r.kind === "Task").map((r) => r.metadata.name));
    for (const pipeline of pipelines) {
      for (const pipelineTask of [...pipeline.spec.tasks, ...(pipeline.spec.finally ?? [])]) {
        expect(taskNames, `${pipeline.metadata.name}: ${pipelineTask.name}`).toContain(pipelineTask.taskRef.name);
      }
    }
  });
});

describe("Tekton parameters and examples", () => {
  it("every Pipeline parameter reaches a Task, and every Task parameter reaches its step", () => {
    for (const pipeline of resources.filter((resource) => resource.kind === "Pipeline")) {
      const wiring = JSON.stringify([pipeline.spec.tasks, pipeline.spec.finally ?? []]);
      for (const param of pipeline.spec.params as Json[]) {
        expect(wiring, `${pipeline.metadata.name} ${param.name}`).toContain(`$(params.${param.name}`);
      }
    }
    for (const t of resources.filter((resource) => resource.kind === "Task")) {
      const steps = JSON.stringify(t.spec.steps);
      for (const param of t.spec.params as Json[]) {
        expect(steps, `${t.metadata.name} ${param.name}`).toContain(`$(params.${param.name}`);
      }
    }
  });

  it("the machine spec is collected first and passed to every training Task and the push", () => {
    for (const pipeline of resources.filter((resource) => resource.kind === "Pipeline")) {
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
      const pipeline = resources.find((r) => r.kind === "Pipeline" && r.metadata.name === run.spec.pipelineRef.name);
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

describe("Tekton task scripts", () => {
  it("run-pipeline sends a RunPipeline request the contract accepts and reports the summary's counts", async () => {
    const dirs = scratch();
    const runPipeline = rpc("PipelineService", "RunPipeline");
    const output = grpcurlOutput(runPipeline, [
      { content: { case: "progress", value: { stage: "train" } } },
      { content: { case: "summary", value: { pipelineName: "stressng_v1", succeededCount: 3, failedCount: 1 } } },
    ]);
    const given = {
      PIPELINE_NAME: "stressng_v1",
      START_TIME: "1700000100",
      END_TIME: "1700000400",
      IDLE_START_TIME: "1700000000",
      IDLE_END_TIME: "1700000100",
      ENERGY_SOURCES: "rapl-sysfs, acpi",
      EXTRACTOR: "smooth",
      ISOLATOR: "profile",
      ABS_TRAINERS: "default",
      DYN_TRAINERS: "SGDRegressorTrainer,LinearRegressionTrainer",
      THIRDPARTY_METRICS: "node_gpu_watts",
      NODE_TYPE: "2",
    };
    const t = task("kepler-model-run-pipeline");
    const { grpcurlArgs } = await runStepScript(t, "run", { ...dirs, params: taskParams(t, given), grpcurlOutput: output });

    expect(grpcurlArgs.slice(-2)).toEqual([
      "kepler-model-pipeline.kepler.svc:8102",
      "kepler.model.v1.PipelineService/RunPipeline",
    ]);
    expect(grpcurlArgs).toContain("-plaintext");
    const window = (start: number, end: number) => ({
      baseUrl: "http://prometheus-k8s.monitoring.svc:9090",
      startTimeSeconds: start,
      endTimeSeconds: end,
      stepSeconds: 3,
      thirdPartyMetricNames: ["node_gpu_watts"],
    });
    expect(requestOf(grpcurlArgs)).toEqual({
      options: {
        pipelineName: "stressng_v1",
        energySources: ["rapl-sysfs", "acpi"],
        extractor: "EXTRACTOR_KIND_SMOOTH",
        isolator: "ISOLATOR_KIND_PROFILE",
        targetHints: ["stress"],
        absTrainerNames: [
          "PolynomialRegressionTrainer",
          "GradientBoostingRegressorTrainer",
          "KNeighborsRegressorTrainer",
          "LinearRegressionTrainer",
          "SVRRegressorTrainer",
          "XgboostFitTrainer",
          "SGDRegressorTrainer",
          "LogarithmicRegressionTrainer",
          "LogisticRegressionTrainer",
          "ExponentialRegressionTrainer",
        ],
        dynTrainerNames: ["SGDRegressorTrainer", "LinearRegressionTrainer"],
        thirdPartyMetricNames: ["node_gpu_watts"],
        window: window(1700000100, 1700000400),
        idleWindow: window(1700000000, 1700000100),
        nodeType: 2,
      },
    });
    expect(readFileSync(join(dirs.resultsDir, "succeeded-count"), "utf8")).toBe("3");
    expect(readFileSync(join(dirs.resultsDir, "failed-count"), "utf8")).toBe("1");
    expect(readFileSync(join(dirs.workspaceDir, "logs/run-stressng_v1.json"), "utf8")).toBe(output);
  });

  it("the grpcurl tasks use TLS, a client certificate and a bearer token from the credentials workspace", async () => {
    const runPipeline = rpc("PipelineService", "RunPipeline");
    const output = grpcurlOutput(runPipeline, [{ content: { case: "summary", value: { pipelineName: "p", succeededCount: 1 } } }]);
    for (const name of ["kepler-model-run-pipeline", "kepler-model-query-prometheus", "kepler-model-export-pipeline"]) {
      const t = task(name);
      expect(
        (t.spec.workspaces as Json[]).find((workspace) => workspace.name === "credentials"),
        `${name} credentials workspace`,
      ).toMatchObject({ optional: true, readOnly: true });
    }
    const dirs = scratch();
    // The harness binds every workspace to one folder: the credentials files sit next to the mnt files.
    mkdirSync(dirs.workspaceDir, { recursive: true });
    for (const file of ["ca.crt", "tls.crt", "tls.key"]) writeFileSync(join(dirs.workspaceDir, file), "pem");
    writeFileSync(join(dirs.workspaceDir, "token"), "0123456789abcdef0123\n");
    const t = task("kepler-model-run-pipeline");
    const params = taskParams(t, { PIPELINE_NAME: "p", START_TIME: "1", END_TIME: "2" });
    const { grpcurlArgs } = await runStepScript(t, "run", { ...dirs, params, grpcurlOutput: output });
    expect(grpcurlArgs).not.toContain("-plaintext");
    expect(grpcurlArgs.slice(0, 8)).toEqual([
      "-cacert",
      join(dirs.workspaceDir, "ca.crt"),
      "-cert",
      join(dirs.workspaceDir, "tls.crt"),
      "-key",
      join(dirs.workspaceDir, "tls.key"),
      "-H",
      "authorization: Bearer 0123456789abcdef0123",
    ]);
    expect(methodOf(grpcurlArgs).name).toBe("RunPipeline");
  });

  it("run-pipeline sends the request `kepler-model pipeline run` sends with the matching flags", async () => {
    // Machine spec from collect-machine-spec on this machine: the result for Tekton, the workspace file for the CLI.
    const collect = task("kepler-model-collect-machine-spec");
    const collected = scratch();
    await runStepScript(collect, "collect", { ...collected, params: taskParams(collect, { MACHINE_ID: "node-a" }), grpcurlOutput: "" });
    const given: Record<string, string> = {
      PIPELINE_NAME: "parity",
      START_TIME: "1700000100",
      END_TIME: "1700000400",
      ENERGY_SOURCES: "rapl-sysfs,acpi",
      FEATURE_GROUPS: "BPFOnly,ThirdParty",
      EXTRACTOR: "smooth",
      ISOLATOR: "trainer",
      TARGET_HINTS: "stress,bench",
      BG_HINTS: "kube",
      ABS_PIPELINE_NAME: "abs_v1",
      ABS_TRAINERS: "XgboostFitTrainer",
      DYN_TRAINERS: "SGDRegressorTrainer,LinearRegressionTrainer",
      THIRDPARTY_METRICS: "node_gpu_watts",
      MACHINE_SPEC: readFileSync(join(collected.resultsDir, "machine-spec"), "utf8"),
      MACHINE_ID: "node-a",
      PROMETHEUS_URL: "http://prometheus.test:9090",
      STEP_SECONDS: "5",
    };
    const flags: Record<string, string> = {
      PIPELINE_NAME: "--pipeline",
      START_TIME: "--start",
      END_TIME: "--end",
      ENERGY_SOURCES: "--source",
      FEATURE_GROUPS: "--feature-group",
      EXTRACTOR: "--extractor",
      ISOLATOR: "--isolator",
      TARGET_HINTS: "--target-hints",
      BG_HINTS: "--bg-hints",
      ABS_PIPELINE_NAME: "--abs-pipeline-name",
      ABS_TRAINERS: "--abs-trainers",
      DYN_TRAINERS: "--dyn-trainers",
      THIRDPARTY_METRICS: "--third-party-metrics",
      MACHINE_ID: "--machine-id",
      PROMETHEUS_URL: "--prometheus",
      STEP_SECONDS: "--step",
    };
    const argv = Object.entries(flags).flatMap(([param, flag]) => [flag, given[param]!]);
    argv.push("--machine-spec", join(collected.workspaceDir, "machine_spec/node-a.json"));

    // A stand-in pipeline service that records what the CLI sends (the contract's own encoding).
    const received: RunPipelineRequestMessage[] = [];
    const server = await startGrpcServer({
      serviceName: "pipeline-recorder",
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger(),
      services: [
        {
          definition: PipelineServiceDefinition,
          implementation: {
            // Only RunPipeline is called; the server needs a handler for every method.
            ...Object.fromEntries(
              Object.keys(PipelineServiceDefinition.methods).map((name) => [
                name,
                () => {
                  throw new Error(`${name} is not recorded`);
                },
              ]),
            ),
            async *runPipeline(requests: AsyncIterable<RunPipelineRequestMessage>) {
              for await (const request of requests) received.push(request);
              yield { content: { $case: "summary", value: { pipelineName: "parity", succeededCount: 1 } } };
            },
          },
        },
      ],
    });
    try {
      const cli = await runCliCaptured(["pipeline", "run", ...argv, "--pipeline-address", `127.0.0.1:${server.port}`]);
      expect(cli.stderr).toBe("");
      expect(cli.code).toBe(0);
    } finally {
      await server.close();
    }
    expect(received).toHaveLength(1);
    const method = rpc("PipelineService", "RunPipeline");
    const fromCli = toJson(method.input, fromBinary(method.input, RunPipelineRequest.encode(received[0]!).finish()), { registry });

    const t = task("kepler-model-run-pipeline");
    const output = grpcurlOutput(method, [{ content: { case: "summary", value: { pipelineName: "parity", succeededCount: 1 } } }]);
    const { grpcurlArgs } = await runStepScript(t, "run", { ...scratch(), params: taskParams(t, given), grpcurlOutput: output });
    const fromTekton = requestOf(grpcurlArgs);
    expect(fromTekton).toEqual(fromCli);
    expect(fromTekton.options.machineSpec.cores).toBe(cpus().length);
    // Every run-pipeline parameter has its flag here, except the Tekton-only ones listed.
    const tektonOnly = ["IDLE_START_TIME", "IDLE_END_TIME", "NODE_TYPE", "PIPELINE_ADDRESS", "GRPCURL_IMAGE"];
    expect((t.spec.params as Json[]).map((param) => param.name).sort()).toEqual([...Object.keys(flags), "MACHINE_SPEC", ...tektonOnly].sort());
  });

  it("run-pipeline fails the step when no model was trained, and rejects an unknown isolator", async () => {
    const runPipeline = rpc("PipelineService", "RunPipeline");
    const t = task("kepler-model-run-pipeline");
    const base = { PIPELINE_NAME: "p", START_TIME: "1", END_TIME: "2" };
    const empty = grpcurlOutput(runPipeline, [{ content: { case: "summary", value: { pipelineName: "p", failedCount: 4 } } }]);
    await expect(runStepScript(t, "run", { ...scratch(), params: taskParams(t, base), grpcurlOutput: empty })).rejects.toThrow(
      "no model was trained",
    );
    await expect(
      runStepScript(t, "run", { ...scratch(), params: taskParams(t, { ...base, ISOLATOR: "minimum" }), grpcurlOutput: empty }),
    ).rejects.toThrow('ISOLATOR must be none, min, profile or trainer, got "minimum"');
  });

  it("run-stressng steps the maximum CPU frequency and the instance counts from the node's CPU info", needs(systemTool("stress-ng")), async () => {
    const stress = task("kepler-model-run-stressng");
    const dirs = scratch();
    // cpufreq policies: 0.8-2.4 GHz, capped at 2.0 GHz by the operator before the run.
    const cpufreq = join(dirs.scratchDir, "cpufreq");
    for (const policy of ["policy0", "policy1"]) {
      mkdirSync(join(cpufreq, policy), { recursive: true });
      writeFileSync(join(cpufreq, policy, "cpuinfo_min_freq"), "800000\n");
      writeFileSync(join(cpufreq, policy, "cpuinfo_max_freq"), "2400000\n");
      writeFileSync(join(cpufreq, policy, "scaling_max_freq"), "2000000\n");
    }
    const params = taskParams(stress, {
      STRESS_TIMEOUT: "1",
      STRESS_BREAK_INTERVAL: "0",
      CPU_FREQUENCY_ENABLED: "true",
      CPUFREQ_PATH: cpufreq,
    });
    const { stdout } = await runStepScript(stress, "stress", { ...dirs, params, arrays: { STRESS_ARGS: ["cpu;none;none"] }, grpcurlOutput: "" });
    // Instances 1, 2, 4, 8 up to the CPU count, then every 8 up to the count + 8; frequencies from min + 800 MHz.
    const count = availableParallelism();
    const instances = [1, 2, 4, 8].filter((n) => n <= count);
    for (let n = 16; n <= count + 8; n += 8) instances.push(n);
    expect(stdout).toContain(`instances: ${instances.join(" ")}; frequencies (kHz): 1600000 2400000`);
    const runs = stdout.split("\n").filter((line) => line.startsWith("maximum CPU frequency") || line.startsWith("stress-ng --"));
    expect(runs).toEqual(
      ["1600000", "2400000"].flatMap((khz) => [
        `maximum CPU frequency ${khz} kHz`,
        ...instances.map((n) => `stress-ng --cpu ${n} (none=none) for 1s`),
      ]),
    );
    // The operator's cap is restored on exit.
    for (const policy of ["policy0", "policy1"]) expect(readFileSync(join(cpufreq, policy, "scaling_max_freq"), "utf8").trim()).toBe("2000000");
  });

  it("collect-machine-spec derives the reference's spec from /proc and /sys, and run-pipeline indexes it", async () => {
    const collect = task("kepler-model-collect-machine-spec");
    // A two-socket machine: 4 logical CPUs, 2 threads per core, 502.9 GiB, cpufreq maxima 3.0 and 3.5 GHz.
    const dirs = scratch();
    const root = join(dirs.scratchDir, "host");
    mkdirSync(join(root, "proc"), { recursive: true });
    const cpu = (index: number, chip: number, mhz: string) =>
      `processor\t: ${index}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz\n` +
      `cpu MHz\t\t: ${mhz}\nphysical id\t: ${chip}\nsiblings\t: 2\ncpu cores\t: 1\n\n`;
    writeFileSync(join(root, "proc/cpuinfo"), cpu(0, 0, "2300.000") + cpu(1, 0, "2999.500") + cpu(2, 1, "2300.000") + cpu(3, 1, "1200.0"));
    writeFileSync(join(root, "proc/meminfo"), "MemTotal:       527380904 kB\nMemFree:         1000 kB\n");
    for (const [policy, khz] of [
      ["policy0", "3000000"],
      ["policy2", "3500000"],
    ]) {
      mkdirSync(join(root, "sys/devices/system/cpu/cpufreq", policy!), { recursive: true });
      writeFileSync(join(root, "sys/devices/system/cpu/cpufreq", policy!, "cpuinfo_max_freq"), `${khz}\n`);
    }
    mkdirSync(join(root, "sys/class/dmi/id"), { recursive: true });
    writeFileSync(join(root, "sys/class/dmi/id/sys_vendor"), "Amazon EC2\n");
    const params = taskParams(collect, { MACHINE_ID: "m4.metal", PROC_PATH: join(root, "proc"), SYS_PATH: join(root, "sys") });
    const { stdout } = await runStepScript(collect, "collect", { ...dirs, params, grpcurlOutput: "" });
    expect(stdout).toContain("machine m4.metal:");
    const specResult = readFileSync(join(dirs.resultsDir, "machine-spec"), "utf8");
    expect(JSON.parse(specResult)).toEqual({
      processor: "intel_xeon_e5_2686v4",
      cores: 4,
      chips: 2,
      memory_gib: 502,
      frequency_mhz: 3500,
      vendor: "amazon",
      threads_per_core: 2,
    });
    expect(readFileSync(join(dirs.resultsDir, "machine-id"), "utf8")).toBe("m4.metal");
    // The workspace copy has the reference's spec.json keys (what `pipeline run --machine-spec` reads).
    expect(JSON.parse(readFileSync(join(dirs.workspaceDir, "machine_spec/m4.metal.json"), "utf8"))).toMatchObject({
      processor: "intel_xeon_e5_2686v4",
      cores: 4,
      chips: 2,
      memory: 502,
      frequency: 3500,
    });

    // The result, passed on as run-pipeline's MACHINE_SPEC, is a MachineSpec the contract decodes strictly.
    const runPipeline = rpc("PipelineService", "RunPipeline");
    const summary = grpcurlOutput(runPipeline, [{ content: { case: "summary", value: { pipelineName: "p", succeededCount: 1 } } }]);
    const train = task("kepler-model-run-pipeline");
    const base = { PIPELINE_NAME: "p", START_TIME: "1", END_TIME: "2", MACHINE_SPEC: specResult, MACHINE_ID: "m4.metal" };
    const { grpcurlArgs } = await runStepScript(train, "run", { ...scratch(), params: taskParams(train, base), grpcurlOutput: summary });
    expect(requestOf(grpcurlArgs).options).toMatchObject({
      machineSpec: {
        processor: "intel_xeon_e5_2686v4",
        cores: 4,
        chips: 2,
        memoryGib: 502,
        frequencyMhz: 3500,
        vendor: "amazon",
        threadsPerCore: 2,
      },
      machineId: "m4.metal",
    });
    expect(requestOf(grpcurlArgs).options.nodeType).toBeUndefined();
    // A NODE_TYPE given by hand wins over the collected spec.
    const forced = await runStepScript(train, "run", {
      ...scratch(),
      params: taskParams(train, { ...base, NODE_TYPE: "3" }),
      grpcurlOutput: summary,
    });
    expect(requestOf(forced.grpcurlArgs).options.nodeType).toBe(3);
    expect(requestOf(forced.grpcurlArgs).options.machineSpec).toBeUndefined();
    await expect(
      runStepScript(train, "run", { ...scratch(), params: taskParams(train, { ...base, MACHINE_ID: "" }), grpcurlOutput: summary }),
    ).rejects.toThrow("MACHINE_SPEC needs MACHINE_ID");
  });

  it("collect-machine-spec on this machine's real /proc: its logical CPUs and memory, a derived id", async () => {
    const collect = task("kepler-model-collect-machine-spec");
    const dirs = scratch();
    await runStepScript(collect, "collect", { ...dirs, params: taskParams(collect, {}), grpcurlOutput: "" });
    const spec = JSON.parse(readFileSync(join(dirs.resultsDir, "machine-spec"), "utf8"));
    expect(spec.cores).toBe(cpus().length);
    expect(spec.memory_gib).toBe(Math.floor(totalmem() / 2 ** 30));
    expect(spec.chips).toBeGreaterThanOrEqual(1);
    expect(spec.frequency_mhz % 100).toBe(0);
    // No MACHINE_ID and no node name outside a pod: the id falls back to processor and core count.
    expect(readFileSync(join(dirs.resultsDir, "machine-id"), "utf8")).toBe(`${spec.processor}-${spec.cores}cores`);
  });

  it("query-prometheus sends a QueryPrometheus request and reassembles the streamed response JSON", async () => {
    const dirs = scratch();
    const query = rpc("ExtractorService", "QueryPrometheus");
    const saved = JSON.stringify({
      kepler_node_platform_joules_total: [{ metric: { source: "acpi" }, values: [[1700000000, "1.5"]] }],
    });
    const half = Math.floor(saved.length / 2);
    const output = grpcurlOutput(query, [
      { content: { case: "responseChunk", value: Buffer.from(saved.slice(0, half)) } },
      { content: { case: "responseChunk", value: Buffer.from(saved.slice(half)) } },
      { content: { case: "summary", value: { responseSizeBytes: BigInt(saved.length) } } },
    ]);
    const t = task("kepler-model-query-prometheus");
    const params = taskParams(t, {
      START_TIME: "1700000000",
      END_TIME: "1700000300",
      OUTPUT_NAME: "kepler_query",
      THIRDPARTY_METRICS: "",
    });
    const { grpcurlArgs } = await runStepScript(t, "query", { ...dirs, params, grpcurlOutput: output });

    expect(grpcurlArgs.slice(-2)).toEqual([
      "kepler-model-extractor.kepler.svc:8103",
      "kepler.model.v1.ExtractorService/QueryPrometheus",
    ]);
    expect(requestOf(grpcurlArgs)).toEqual({
      window: {
        baseUrl: "http://prometheus-k8s.monitoring.svc:9090",
        startTimeSeconds: 1700000000,
        endTimeSeconds: 1700000300,
        stepSeconds: 3,
      },
    });
    expect(readFileSync(join(dirs.workspaceDir, "data/kepler_query.json"), "utf8")).toBe(saved);
  });

  it("export-pipeline writes the registry's streamed zip and unpacks it", needs(systemTool("unzip")), async () => {
    const dirs = scratch();
    const exportPipeline = rpc("RegistryService", "ExportPipeline");
    const metadata = JSON.stringify({ name: "stressng_v1", extractor: "default", isolator: "min" });
    const zip = createZip([
      { name: "metadata.json", data: Buffer.from(metadata) },
      { name: "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0/weight.json", data: Buffer.from("{}") },
    ]);
    const output = grpcurlOutput(exportPipeline, [
      { archiveSizeBytes: BigInt(zip.length), archiveChunk: zip.subarray(0, 40) },
      { archiveChunk: zip.subarray(40) },
    ]);
    const t = task("kepler-model-export-pipeline");
    const { grpcurlArgs } = await runStepScript(t, "export", {
      ...dirs,
      params: taskParams(t, { PIPELINE_NAME: "stressng_v1" }),
      grpcurlOutput: output,
    });

    expect(grpcurlArgs.slice(-2)).toEqual([
      "kepler-model-registry.kepler.svc:8100",
      "kepler.model.v1.RegistryService/ExportPipeline",
    ]);
    expect(requestOf(grpcurlArgs)).toEqual({ pipelineName: "stressng_v1" });
    expect(readFileSync(join(dirs.workspaceDir, "models/stressng_v1.zip")).equals(zip)).toBe(true);
    expect(readFileSync(join(dirs.workspaceDir, "models/stressng_v1/metadata.json"), "utf8")).toBe(metadata);
    expect(
      readFileSync(
        join(dirs.workspaceDir, "models/stressng_v1/rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0/weight.json"),
        "utf8",
      ),
    ).toBe("{}");
  });

  it("record-idle-window and run-stressng record Unix-second windows around a real stress-ng plan", needs(systemTool("stress-ng")), async () => {
    const idle = task("kepler-model-record-idle-window");
    const idleDirs = scratch();
    await runStepScript(idle, "wait-idle", {
      ...idleDirs,
      params: taskParams(idle, { IDLE_COLLECT_INTERVAL: "0" }),
      grpcurlOutput: "",
    });
    const idleStart = Number(readFileSync(join(idleDirs.resultsDir, "idle-start-time"), "utf8"));
    const idleEnd = Number(readFileSync(join(idleDirs.resultsDir, "idle-end-time"), "utf8"));
    expect(Number.isInteger(idleStart) && idleStart > 1_600_000_000).toBe(true);
    expect(idleEnd).toBeGreaterThanOrEqual(idleStart);

    const stress = task("kepler-model-run-stressng");
    const dirs = scratch();
    const params = taskParams(stress, { STRESS_TIMEOUT: "1", STRESS_BREAK_INTERVAL: "0", CPU_FREQUENCY_ENABLED: "false" });
    // One workload with an extra stress-ng parameter, in the reference's LOAD;KEY;VALUE form.
    const arrays = { STRESS_ARGS: ["cpu;cpu-method;int64"] };
    const { stdout } = await runStepScript(stress, "stress", { ...dirs, params, arrays, grpcurlOutput: "" });
    expect(stdout).toContain("one pass at the current frequency");
    expect(stdout).toMatch(/^stress-ng --cpu 1 \(cpu-method=int64\) for 1s$/m);
    const start = Number(readFileSync(join(dirs.resultsDir, "stress-start-time"), "utf8"));
    const end = Number(readFileSync(join(dirs.resultsDir, "stress-end-time"), "utf8"));
    expect(end).toBeGreaterThanOrEqual(start + 1);
  });
});
