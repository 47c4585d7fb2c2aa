// The Tekton Tasks that call the services with grpcurl (run-pipeline, query-prometheus, export-pipeline),
// each step script run here under /bin/sh as Tekton would run it. The calls are checked against the real
// contracts (test/deploy/support/tekton-harness.ts). grpcurl itself is not installed here, so a stand-in
// records its arguments and prints responses built from the real response types in grpcurl's format.
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunPipelineRequest } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { createZip } from "../../services/models/zip-writer.js";
import { runCliCaptured } from "../support/run-cli.js";
import { needs, systemTool } from "../support/system-tools.js";
import type { Json } from "./support/rendered-manifests.js";
import { startRecordingPipelineService } from "./support/recording-pipeline-service.js";
import { useTektonHarness } from "./support/tekton-harness.js";
import { runStepScript, taskParams } from "./support/tekton-script.js";

const { task, scratch, rpc, methodOf, requestOf, decodeRequest, grpcurlOutput } = useTektonHarness();

describe("Tekton task scripts that call the services with grpcurl", () => {
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
    const server = await startRecordingPipelineService({ pipelineName: "parity", succeededCount: 1 });
    try {
      const cli = await runCliCaptured(["pipeline", "run", ...argv, "--pipeline-address", `127.0.0.1:${server.port}`]);
      expect(cli.stderr).toBe("");
      expect(cli.code).toBe(0);
    } finally {
      await server.close();
    }
    expect(server.received).toHaveLength(1);
    const method = rpc("PipelineService", "RunPipeline");
    const fromCli = decodeRequest(method, RunPipelineRequest.encode(server.received[0]!).finish());

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

});