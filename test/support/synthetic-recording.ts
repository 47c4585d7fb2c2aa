// Writes small Prometheus recordings in the reference's saved-response format ({metric: [{metric:
// labels, values: [[t, "v"], ...]}]}) from exact per-row functions, so a model trained on them can be
// checked against hand-computed values. Row i is the interval (t[i-1], t[i]]: container counters grow
// by rate(i) * step over it, node energy by watts(i) * step, and node-level gauges read value(i) at t[i].
// The extractor drops row 0 (no previous sample), so rows 1..samples-1 form the table.

export interface SyntheticRecordingSpec {
  readonly startSeconds: number;
  readonly stepSeconds: number;
  readonly samples: number;
  /** Container ids; each gets pod `pod-<id>`, name `ctr-<id>`, namespace `default`. */
  readonly containers: readonly string[];
  /** Counter metric name -> per-second rate of a container over row i. */
  readonly containerCounters: Readonly<Record<string, (row: number, container: number) => number>>;
  /** Gauge metric name -> its series (labels without container keys) and value at row i. */
  readonly nodeGauges?: Readonly<
    Record<string, ReadonlyArray<{ labels: Record<string, string>; value: (row: number) => number }>>
  >;
  /** Energy source label value (e.g. rapl-sysfs, acpi). */
  readonly energySource: string;
  /** Component -> node watts over row i (written as kepler_node_<component>_joules_total). */
  readonly watts: Readonly<Record<string, (row: number) => number>>;
}

type SavedSeries = { metric: Record<string, string>; values: Array<[number, string]> };

/** The saved response document for the spec. */
export function syntheticRecording(spec: SyntheticRecordingSpec): Record<string, SavedSeries[]> {
  const times = Array.from({ length: spec.samples }, (_, i) => spec.startSeconds + i * spec.stepSeconds);
  const cumulative = (rate: (row: number) => number, base: number): Array<[number, string]> => {
    let total = base;
    return times.map((t, i) => {
      if (i > 0) total += rate(i) * spec.stepSeconds;
      return [t, String(total)];
    });
  };
  const saved: Record<string, SavedSeries[]> = {};
  for (const [metric, rate] of Object.entries(spec.containerCounters)) {
    saved[metric] = spec.containers.map((id, c) => ({
      metric: { container_id: id, pod_name: `pod-${id}`, container_name: `ctr-${id}`, container_namespace: "default" },
      values: cumulative((row) => rate(row, c), 1000),
    }));
  }
  for (const [metric, series] of Object.entries(spec.nodeGauges ?? {})) {
    saved[metric] = series.map(({ labels, value }) => ({
      metric: { instance: "node-1", ...labels },
      values: times.map((t, i) => [t, String(value(i))]),
    }));
  }
  for (const [component, watts] of Object.entries(spec.watts)) {
    saved[`kepler_node_${component}_joules_total`] = [
      {
        metric: { instance: "node-1", mode: "dynamic", package: "0", source: spec.energySource },
        values: cumulative(watts, 50_000),
      },
    ];
  }
  return saved;
}

/**
 * A deterministic, irregular rate in [1, 2] * scale for (row, salt): distinct salts give linearly
 * independent columns, so a least-squares fit on exactly linear data is exact.
 */
export function irregularRate(row: number, salt: number, scale = 1): number {
  const x = Math.sin(row * 12.9898 + salt * 78.233) * 43758.5453;
  return scale * (1 + (x - Math.floor(x)));
}
