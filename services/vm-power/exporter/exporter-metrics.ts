// The exporter's /metrics, on the kit's metrics registry (served by the kit's metrics HTTP server, like
// every service's): the power with Kepler 0.10's names (`kepler_node_cpu_watts{zone}` marked
// `source="model"` or, when the host's own measurement is live, `source="host"`;
// `kepler_node_cpu_joules_total{zone}`, one series whose `source` is "model", or "host,model" with a host
// source configured, so that a switch never starts a new counter), the model in use, the ticks, and for the
// modelled sysfs tree which model, pipeline and version feed it, so whoever reads Kepler's numbers in the
// VM can tell they are modelled.
import { Counter, Gauge } from "prom-client";
import { metricsRegistry } from "../../kit/observe/metrics.js";
import type { TreeWriter } from "../tree/tree-writer.js";
import type { VmExporter } from "./vm-exporter.js";
import { INTERVAL_LEVEL } from "./exporter-model.js";

/** The tree the exporter writes, as /metrics describes it. */
export interface TreeDescription {
  writer: TreeWriter;
  root: string;
  layouts: readonly string[];
}

export interface ExporterMetricsSource {
  exporter: VmExporter;
  zones: readonly string[];
  nodeName: string;
  /** This program's version (package.json). */
  version: string;
  tree?: TreeDescription;
}

const LIFECYCLE_NAMES = [
  "kepler_model_exporter_inference_seconds",
  "kepler_model_exporter_model_version_info",
  "kepler_model_exporter_interval_width_watts",
  "kepler_model_exporter_feature_errors_total",
  "kepler_model_exporter_training_rows",
  "kepler_model_exporter_trained_timestamp_seconds",
];

const NAMES = [
  "kepler_node_cpu_watts",
  "kepler_node_cpu_joules_total",
  "kepler_model_exporter_model_info",
  "kepler_model_exporter_ticks_total",
  "kepler_model_exporter_tick_seconds",
  "kepler_model_exporter_model_loads_total",
  ...LIFECYCLE_NAMES,
  "kepler_model_exporter_tree_info",
  "kepler_model_exporter_tree_watts",
  "kepler_model_exporter_tree_flushes_total",
  "kepler_model_exporter_tree_files_written_total",
  "kepler_model_exporter_tree_errors_total",
];

// prom-client counters only go up by inc(): a collected counter is reset and set to the source's total.
function setCounter<L extends string>(counter: Counter<L>, value: number, labels?: Partial<Record<L, string>>): void {
  if (labels === undefined) counter.inc(value);
  else counter.inc(labels, value);
}

/**
 * Registers the exporter's metrics on the process registry, read from `source` at every scrape; replaces
 * those of an earlier exporter in the same process (tests start several).
 */
export function registerExporterMetrics(source: ExporterMetricsSource): void {
  for (const name of NAMES) metricsRegistry.removeSingleMetric(name);
  const registers = [metricsRegistry];
  const status = () => source.exporter.status;
  new Gauge({
    name: "kepler_node_cpu_watts",
    help: "CPU power of this VM per RAPL zone: modelled from its OS counters (source=model), or the host Kepler's own measurement of it when available (source=host).",
    labelNames: ["node_name", "zone", "source", "model"] as const,
    registers,
    collect() {
      this.reset();
      const { watts, modelName, source: live } = status();
      if (watts === undefined) return;
      source.zones.forEach((zone, i) =>
        this.set({ node_name: source.nodeName, zone, source: live, model: live === "host" ? "" : modelName }, watts[i]!),
      );
    },
  });
  new Counter({
    name: "kepler_node_cpu_joules_total",
    help: "CPU energy of this VM per RAPL zone since the exporter started (the integral of kepler_node_cpu_watts, whichever source was live).",
    labelNames: ["node_name", "zone", "source"] as const,
    registers,
    collect() {
      this.reset();
      const { watts, joules, hasHostSource } = status();
      if (watts === undefined) return;
      const label = hasHostSource ? "host,model" : "model";
      source.zones.forEach((zone, i) => setCounter(this, joules[i]!, { node_name: source.nodeName, zone, source: label }));
    },
  });
  new Gauge({
    name: "kepler_model_exporter_model_info",
    help: "The model the exporter runs (or the estimator answered with).",
    labelNames: ["model", "pipeline", "feature_group", "origin"] as const,
    registers,
    collect() {
      this.reset();
      const { modelName, pipeline, featureGroup, origin } = status();
      if (modelName !== "") this.set({ model: modelName, pipeline, feature_group: featureGroup, origin }, 1);
    },
  });
  new Counter({
    name: "kepler_model_exporter_ticks_total",
    help: "Ticks (read counters, predict, integrate) by outcome.",
    labelNames: ["outcome"] as const,
    registers,
    collect() {
      this.reset();
      setCounter(this, status().ticksOk, { outcome: "ok" });
      setCounter(this, status().ticksError, { outcome: "error" });
    },
  });
  new Gauge({
    name: "kepler_model_exporter_tick_seconds",
    help: "Duration of the last tick.",
    registers,
    collect() {
      this.set(status().lastTickSeconds);
    },
  });
  new Counter({
    name: "kepler_model_exporter_model_loads_total",
    help: "Models loaded (the first and every change).",
    registers,
    collect() {
      this.reset();
      setCounter(this, status().modelLoads);
    },
  });
  registerLifecycleMetrics(source);
  const tree = source.tree;
  if (tree !== undefined) registerTreeMetrics(source, tree);
}

function registerTreeMetrics(source: ExporterMetricsSource, tree: TreeDescription): void {
  const registers = [metricsRegistry];
  new Gauge({
    name: "kepler_model_exporter_tree_info",
    help: "The modelled sysfs tree Kepler reads as its host.sysfs (its values are modelled, not measured): where, which layout, and which model, pipeline and model version feed it, written by which exporter version.",
    labelNames: ["path", "layout", "model", "pipeline", "model_version", "exporter_version"] as const,
    registers,
    collect() {
      this.reset();
      const { modelName, pipeline, modelVersion } = source.exporter.status;
      for (const layout of tree.layouts)
        this.set(
          { path: tree.root, layout, model: modelName, pipeline, model_version: modelVersion, exporter_version: source.version },
          1,
        );
    },
  });
  new Gauge({
    name: "kepler_model_exporter_tree_watts",
    help: "Watts per zone the tree's counters advance at now (the last modelled watts; held through failed ticks and restarts).",
    labelNames: ["zone"] as const,
    registers,
    collect() {
      this.reset();
      tree.writer.zones.forEach((zone, i) => this.set({ zone }, tree.writer.watts(i)));
    },
  });
  const counters: Array<[string, string, () => number]> = [
    [
      "kepler_model_exporter_tree_flushes_total",
      "Updates of the tree (counters advanced, files rewritten).",
      () => tree.writer.stats.flushes,
    ],
    [
      "kepler_model_exporter_tree_files_written_total",
      "Files of the tree replaced (each atomically).",
      () => tree.writer.stats.filesWritten,
    ],
    ["kepler_model_exporter_tree_errors_total", "Failed tree or state writes.", () => tree.writer.stats.errors],
  ];
  for (const [name, help, value] of counters)
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        setCounter(this, value());
      },
    });
}

// EP-003's exporter metrics: inference duration, model version, interval width, feature collection errors,
// training data points and last training time (the last three from the model's metadata.json).
function registerLifecycleMetrics(source: ExporterMetricsSource): void {
  const registers = [metricsRegistry];
  const model = () => source.exporter.currentModel;
  new Gauge({
    name: "kepler_model_exporter_inference_seconds",
    help: "Duration of the last prediction: the model run here, or the estimator's Estimate call.",
    registers,
    collect() {
      this.set(source.exporter.status.inferenceSeconds);
    },
  });
  new Gauge({
    name: "kepler_model_exporter_model_version_info",
    help: "The archive version of the model in use: the first 12 hex digits of its zip's SHA-256 (as `models rollback` reports).",
    labelNames: ["model", "model_version"] as const,
    registers,
    collect() {
      this.reset();
      const current = model();
      if (current !== undefined) this.set({ model: current.name, model_version: current.version }, 1);
    },
  });
  new Gauge({
    name: "kepler_model_exporter_interval_width_watts",
    help: "Width of the model's prediction interval per zone (split conformal on its held-out residuals), watts.",
    labelNames: ["zone", "level"] as const,
    registers,
    collect() {
      this.reset();
      for (const [zone, width] of model()?.facts.intervalWidthWatts ?? [])
        this.set({ zone, level: String(INTERVAL_LEVEL) }, width);
    },
  });
  new Counter({
    name: "kepler_model_exporter_feature_errors_total",
    help: "Guest counter reads that failed and model features this VM could not give.",
    registers,
    collect() {
      this.reset();
      setCounter(this, source.exporter.status.featureErrors);
    },
  });
  const facts: Array<[string, string, (m: NonNullable<ReturnType<typeof model>>) => number | undefined]> = [
    ["kepler_model_exporter_training_rows", "Rows the model in use was fitted on.", (m) => m.facts.trainingRows],
    [
      "kepler_model_exporter_trained_timestamp_seconds",
      "When the model in use was trained, Unix seconds.",
      (m) => m.facts.trainedTimeSeconds,
    ],
  ];
  for (const [name, help, value] of facts)
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.reset();
        const current = model();
        const found = current === undefined ? undefined : value(current);
        if (found !== undefined) this.set(found);
      },
    });
}
