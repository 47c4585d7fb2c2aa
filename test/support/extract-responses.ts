// Small hand-made Prometheus responses for the extractor's domain tests (semantics and bad input):
// container and energy series, and a BPFOnly recording whose rates and watts are worked out by hand
// (the readers of the result are in extract-readers.ts).

export type Samples = Array<[number, number | string]>;
export const container = (id: string, samples: Samples, extra: Record<string, string> = {}) => ({
  metric: {
    container_id: id,
    pod_name: `pod-${id}`,
    container_name: `name-${id}`,
    container_namespace: "ns",
    job: "kepler",
    ...extra,
  },
  values: samples.map(([t, v]) => [t, String(v)]),
});
export const energy = (source: string, samples: Samples, extra: Record<string, string> = {}) => ({
  metric: { source, mode: "dynamic", ...extra },
  values: samples.map(([t, v]) => [t, String(v)]),
});

// Platform energy 0, 1000, 2500, 4000 J at 1000, 1010, 1020, 1030 s -> 100, 150, 150 W.
export const PLATFORM: Samples = [
  [1000, 0],
  [1010, 1000],
  [1020, 2500],
  [1030, 4000],
];
// c1 counts 0, 100, 300, 600 -> 10, 20, 30 /s; c2 appears at 1010 with 50, 150, 250 -> 0 (first), 10, 10 /s.
export const C1: Samples = [
  [1000, 0],
  [1010, 100],
  [1020, 300],
  [1030, 600],
];
export const C2: Samples = [
  [1010, 50],
  [1020, 150],
  [1030, 250],
];

export function bpfResponse(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kepler_container_bpf_cpu_time_ms_total: [container("c1", C1), container("c2", C2)],
    kepler_container_bpf_page_cache_hit_total: [container("c1", C1), container("c2", C2)],
    kepler_node_platform_joules_total: [energy("acpi", PLATFORM)],
    ...overrides,
  };
}
