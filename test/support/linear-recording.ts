// Recordings for feature groups no real recording has: node power made exactly linear in the group's
// features (built on test/support/synthetic-recording.ts), so a LinearRegression model must reproduce
// hand-computed watts.
import { irregularRate, syntheticRecording } from "./synthetic-recording.js";

const STEP_SECONDS = 3;
const SAMPLES = 40;
export const RAPL = ["package", "core", "uncore", "dram"] as const;
export type RaplComponent = (typeof RAPL)[number];
/** Watts at rest per component. */
export const INTERCEPT = { package: 25, core: 10, uncore: 2, dram: 6 };

/** Node power exactly linear in the features: intercept + sum(weight * feature), per component. */
export interface LinearPower {
  readonly intercept: Record<RaplComponent, number>;
  readonly weights: Record<string, number>;
}

export function linearWatts(power: LinearPower, component: RaplComponent, values: Record<string, number>): number {
  // Each component is a fixed multiple of the package's dynamic part plus its own intercept.
  const share = { package: 1, core: 0.6, uncore: 0, dram: 0.25 }[component];
  const dynamic = Object.entries(power.weights).reduce((sum, [feature, weight]) => sum + weight * values[feature]!, 0);
  return power.intercept[component] + share * dynamic;
}

/** A container counter: `feature` recorded as `metric`, its rates around `scale`. */
export interface LinearFeature {
  readonly feature: string;
  readonly metric: string;
  readonly scale: number;
}

/** A node-level gauge with one series per label set; its node value is the series summed. */
export interface LinearGauge extends LinearFeature {
  readonly series: Array<Record<string, string>>;
}

export interface LinearRecording {
  /** The saved Prometheus response, as RunPipeline reads it. */
  readonly text: string;
  /** Node value of each feature at a row. */
  nodeValue(row: number): Record<string, number>;
}

/**
 * A recording whose container counters (2 containers) are `features` under their Kepler metric names,
 * with node power linear in the per-node sums (and, optionally, node-level gauges).
 */
export function linearRecording(
  features: readonly LinearFeature[],
  power: LinearPower,
  gauges: readonly LinearGauge[] = [],
): LinearRecording {
  const containers = ["c1", "c2"];
  const rate = (salt: number, scale: number) => (row: number, container: number) =>
    irregularRate(row, salt * 10 + container, scale);
  const gauge = (salt: number, scale: number) => (row: number) => irregularRate(row, 500 + salt, scale);
  // Node value of each feature at row i: the container rates summed, or the gauge series summed.
  const nodeValue = (row: number): Record<string, number> => {
    const values: Record<string, number> = {};
    features.forEach(({ feature, scale }, k) => {
      values[feature] = containers.reduce((sum, _, c) => sum + rate(k, scale)(row, c), 0);
    });
    gauges.forEach(({ feature, series, scale }, g) => {
      values[feature] = series.reduce((sum, _, s) => sum + gauge(g * 10 + s, scale)(row), 0);
    });
    return values;
  };
  const saved = syntheticRecording({
    startSeconds: 1_700_000_000,
    stepSeconds: STEP_SECONDS,
    samples: SAMPLES,
    containers,
    containerCounters: Object.fromEntries(features.map(({ metric, scale }, k) => [metric, rate(k, scale)])),
    nodeGauges: Object.fromEntries(
      gauges.map(({ metric, series, scale }, g) => [
        metric,
        series.map((labels, s) => ({ labels, value: gauge(g * 10 + s, scale) })),
      ]),
    ),
    energySource: "rapl-sysfs",
    watts: Object.fromEntries(RAPL.map((c) => [c, (row: number) => linearWatts(power, c, nodeValue(row))])),
  });
  return { text: JSON.stringify(saved), nodeValue };
}
