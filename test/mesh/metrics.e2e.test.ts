// Prometheus metrics of the mesh: one /metrics endpoint for the six services of the process, checked
// after real calls (counters and histograms moved by exactly the calls made, with their labels), held to
// `promtool check metrics`, and scraped by a real Prometheus that then answers a query on our metrics.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MetricsServer, startMetricsServer } from "../../services/kit/observe/metrics.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { type DefaultMeshHandle, startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { REPO_ROOT } from "../support/child-process.js";
import { PROMETHEUS_TOOLS, PROMTOOL_BINARY, type PrometheusInstance, startPrometheus } from "../support/prometheus.js";
import { needs, skipWithout } from "../support/system-tools.js";

let folder: string;
let mesh: DefaultMeshHandle;
let metrics: MetricsServer;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "metrics-e2e-"));
  metrics = await startMetricsServer("127.0.0.1", 0);
  mesh = await startMeshWithDefaultModels({
    logger: silentLogger(),
    flags: {
      ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"])),
      "model-path": folder,
      "registry-rescan-ms": "0",
    },
    defaultModels: true,
  });
}, 120_000);

afterAll(async () => {
  await mesh?.close();
  await metrics?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The value of one series (name + exact label set, labels in any order), 0 when absent. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(found).length !== Object.keys(labels).length) continue;
    if (Object.entries(labels).every(([key, expected]) => found[key] === expected)) return Number(match[3]);
  }
  return 0;
}

const ESTIMATE = { service: "estimator", method: "/kepler.model.v1.EstimatorService/Estimate" };

describe("metrics of the mesh on one /metrics endpoint", () => {
  it("counts each Estimate (status, latency, rows) and names the model serving it", async () => {
    const before = await scrape();
    const estimator = createEstimatorClient(address("estimator"));
    let modelName = "";
    try {
      for (const rows of [1, 3]) {
        const response = await estimator.client.estimate({
          featureNames: ["cpu_cycles", "cpu_instructions", "cache_miss"],
          rowCount: rows,
          values: Buffer.from(Float64Array.from({ length: 3 * rows }, (_, i) => 1e9 + i).buffer),
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
          energySource: "rapl-sysfs",
          trainerName: "",
          pipelineName: "",
        });
        modelName = response.modelName;
      }
      await expect(
        estimator.client.estimate({
          featureNames: ["cpu_cycles"],
          rowCount: 2,
          values: Buffer.alloc(8),
          outputType: 1,
          energySource: "rapl-sysfs",
          trainerName: "",
          pipelineName: "",
        }),
      ).rejects.toThrow(/INVALID_ARGUMENT/);
    } finally {
      estimator.close();
    }
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(delta("kepler_model_rpc_requests_total", { ...ESTIMATE, code: "OK" })).toBe(2);
    expect(delta("kepler_model_rpc_requests_total", { ...ESTIMATE, code: "INVALID_ARGUMENT" })).toBe(1);
    expect(delta("kepler_model_rpc_duration_seconds_count", ESTIMATE)).toBe(3);
    expect(delta("kepler_model_rpc_duration_seconds_bucket", { ...ESTIMATE, le: "+Inf" })).toBe(3);
    expect(value(after, "kepler_model_rpc_in_flight", ESTIMATE)).toBe(0);
    expect(delta("kepler_model_estimator_rows_total", { source: "rapl-sysfs", output_type: "AbsPower", via: "grpc" })).toBe(4);
    expect(after).toMatch(
      new RegExp(
        `kepler_model_estimator_model_info\\{source="rapl-sysfs",output_type="AbsPower",pipeline="default",feature_group="[A-Za-z]+",model="${modelName}"\\} 1`,
      ),
    );
    // The first lookup of the query loaded the model, the second was a cache hit.
    expect(delta("kepler_model_estimator_model_cache_total", { result: "hit" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "kepler_model_estimator_registry_reachable")).toBe(1);
  });

  it("counts the registry's models, selection failures and the pipeline run of the default training", async () => {
    const registry = createRegistryClient(address("registry"));
    try {
      const before = await scrape();
      await expect(
        registry.client.selectModel({
          outputType: 1,
          energySource: "rapl-sysfs",
          pipelineName: "missing",
          featureNames: ["cpu_cycles"],
        }),
      ).rejects.toThrow();
      const after = await scrape();
      expect(
        value(after, "kepler_model_registry_selection_failures_total", { reason: "NOT_FOUND" }) -
          value(before, "kepler_model_registry_selection_failures_total", { reason: "NOT_FOUND" }),
      ).toBe(1);
      const models = (await registry.client.listModels({ pipelineName: "default" })).models;
      const stored = models.filter(
        (m) => m.location?.energySource === "acpi" && m.location?.featureGroup === "CounterOnly" && m.location.outputType === 1,
      );
      expect(stored.length).toBeGreaterThan(0);
      expect(
        value(after, "kepler_model_registry_models", {
          pipeline: "default",
          source: "acpi",
          output_type: "AbsPower",
          feature_group: "CounterOnly",
        }),
      ).toBe(stored.length);
      expect(value(after, "kepler_model_registry_model_events_total", { kind: "published" })).toBeGreaterThanOrEqual(
        models.length,
      );
      expect(value(after, "kepler_model_pipeline_runs_total", { kind: "once", outcome: "succeeded" })).toBeGreaterThanOrEqual(1);
      expect(value(after, "kepler_model_pipeline_models_total", { outcome: "succeeded" })).toBeGreaterThanOrEqual(models.length);
      // Per stage (rows in and out, durations) and per trainer, from the default training.
      expect(value(after, "kepler_model_pipeline_stage_rows_total", { stage: "extract", direction: "out" })).toBeGreaterThan(0);
      expect(value(after, "kepler_model_pipeline_stage_rows_total", { stage: "isolate", direction: "in" })).toBeGreaterThan(
        value(after, "kepler_model_pipeline_stage_rows_total", { stage: "isolate", direction: "out" }),
      );
      // One Train call per table carries both trainers: each trainer is timed once per call.
      const trainCalls = value(after, "kepler_model_pipeline_stage_duration_seconds_count", { stage: "train" });
      expect(trainCalls).toBeGreaterThan(0);
      for (const trainer of ["LinearRegressionTrainer", "SGDRegressorTrainer"])
        expect(value(after, "kepler_model_pipeline_trainer_duration_seconds_count", { trainer })).toBe(trainCalls);
      // Node process metrics (heap, event-loop lag) come with it.
      expect(after).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
      expect(after).toMatch(/^nodejs_eventloop_lag_seconds \S+/m);
      // Every service of the process is on the one endpoint.
      for (const name of SERVICE_NAMES) expect(after, name).toContain(`service="${name}"`);
    } finally {
      registry.close();
    }
  });

  it("passes promtool check metrics", needs(PROMETHEUS_TOOLS[1]), async () => {
    const text = await scrape();
    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      const child = execFile(PROMTOOL_BINARY, ["check", "metrics"], (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), output: stdout + stderr }),
      );
      child.stdin!.end(text);
    });
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  });

  it("a real Prometheus scrapes the endpoint and answers a query on our metrics; the Grafana dashboard's queries are valid and name exported metrics", async (context) => {
    skipWithout(context, ...PROMETHEUS_TOOLS);
    let prometheus: PrometheusInstance | undefined;
    try {
      prometheus = await startPrometheus({ scrapeTargets: [`127.0.0.1:${metrics.port}`] });
      const query = encodeURIComponent('sum by (service) (kepler_model_rpc_requests_total{service="estimator"})');
      let result: Array<{ metric: Record<string, string>; value: [number, string] }> = [];
      for (let attempt = 0; attempt < 100 && result.length === 0; attempt++) {
        const body = (await (await fetch(`${prometheus.baseUrl}/api/v1/query?query=${query}`)).json()) as {
          data: { result: typeof result };
        };
        result = body.data.result;
        if (result.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(result).toHaveLength(1);
      expect(result[0]!.metric).toEqual({ service: "estimator" });
      expect(Number(result[0]!.value[1])).toBeGreaterThanOrEqual(3);
      const targets = (await (await fetch(`${prometheus.baseUrl}/api/v1/targets`)).json()) as {
        data: { activeTargets: Array<{ health: string }> };
      };
      expect(targets.data.activeTargets.map((t) => t.health)).toEqual(["up"]);

      // The Grafana dashboard: every expression is valid PromQL for this Prometheus (variables filled in)
      // and names only metrics this process exports.
      const dashboard = JSON.parse(await readFile(join(REPO_ROOT, "deploy/grafana/kepler-model.json"), "utf8")) as {
        panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
      };
      const exported = new Set(
        [...(await scrape()).matchAll(/^# TYPE (\S+) (\w+)$/gm)].flatMap(([, name, type]) =>
          type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
        ),
      );
      const expressions = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
      expect(expressions.length).toBeGreaterThanOrEqual(10);
      for (const expr of expressions) {
        const names = [...expr.matchAll(/\b((?:kepler_model|nodejs|process)_\w+)/g)].map((match) => match[1]!);
        expect(names.length, expr).toBeGreaterThan(0);
        for (const name of names) expect(exported.has(name), `${name} in ${expr}`).toBe(true);
        const filled = expr.replaceAll("$job", ".*").replaceAll("$__rate_interval", "1m").replaceAll("$__range", "5m");
        const answer = (await (await fetch(`${prometheus.baseUrl}/api/v1/query?query=${encodeURIComponent(filled)}`)).json()) as {
          status: string;
          error?: string;
        };
        expect(answer.status, `${expr}: ${answer.error}`).toBe("success");
      }
    } finally {
      await prometheus?.stop();
    }
  }, 60_000);
});
