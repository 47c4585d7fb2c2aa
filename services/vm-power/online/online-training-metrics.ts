// The exporter's online training on /metrics: the rows it holds, the models published or not, and when
// one was last published (the model in use then shows its own rows and training time).
import { Counter, Gauge } from "prom-client";
import { metricsRegistry } from "../../kit/observe/metrics.js";
import type { OnlineTraining } from "./online-training.js";

const NAMES = [
  "kepler_model_exporter_online_training_rows",
  "kepler_model_exporter_online_training_models_total",
  "kepler_model_exporter_online_training_published_timestamp_seconds",
];

/** Registers the metrics, read from `online` at every scrape; replaces those of an earlier exporter in the process. */
export function registerOnlineTrainingMetrics(online: OnlineTraining): void {
  for (const name of NAMES) metricsRegistry.removeSingleMetric(name);
  const registers = [metricsRegistry];
  new Gauge({
    name: "kepler_model_exporter_online_training_rows",
    help: "Rows (ticks served from the host's number) online training holds now.",
    registers,
    collect() {
      this.set(online.rows.count);
    },
  });
  new Counter({
    name: "kepler_model_exporter_online_training_models_total",
    help: "Models trained online, by outcome: published to the registry, or not (the fit failed or the registry refused it).",
    labelNames: ["outcome"],
    registers,
    collect() {
      this.reset();
      this.inc({ outcome: "published" }, online.status.published);
      this.inc({ outcome: "not_published" }, online.status.notPublished);
    },
  });
  new Gauge({
    name: "kepler_model_exporter_online_training_published_timestamp_seconds",
    help: "When online training last published a model, Unix seconds.",
    registers,
    collect() {
      this.reset();
      if (online.status.lastPublishedSeconds !== undefined) this.set(online.status.lastPublishedSeconds);
    },
  });
}
