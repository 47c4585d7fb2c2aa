// A test stand-in for a Kepler 0.7.12 collector's local regressor (the same code path through 0.9.0),
// written from the wire description in the reference notes (kepler-collector.md §2), not from Kepler's
// source: POST /model {weight: true} for weight.json, then Kepler's Go prediction formulas (linear and the
// three curve fits) evaluated on the weights it received. Its estimator sidecar client is
// test/support/kepler-sidecar-client.ts.

export { KEPLER_0712_METRICS } from "./kepler-sidecar-client.js";

/** Kepler's weight.json (ComponentModelWeights, v0.7.12+ struct form). */
export interface KeplerModelWeights {
  model_name?: string;
  machine_spec?: Record<string, unknown>;
  platform?: ComponentWeights;
  core?: ComponentWeights;
  uncore?: ComponentWeights;
  package?: ComponentWeights;
  dram?: ComponentWeights;
}

interface ComponentWeights {
  All_Weights: {
    Categorical_Variables?: Record<string, Record<string, { weight: number }>>;
    Numerical_Variables?: Record<string, { scale: number; weight?: number }>;
    Bias_Weight?: number;
    CurveFit_Weights?: number[];
  };
}

/** Kepler 0.7.12's ModelRequest, as its regressor marshals it. */
export interface ModelRequest {
  metrics: string[];
  output_type: "AbsPower" | "DynPower";
  source: string;
  node_type: number;
  weight: boolean;
  trainer_name: string;
  filter: string;
  machine_spec: {
    vendor: string;
    processor: string;
    cores: number;
    chips: number;
    memory: number;
    frequency: number;
    threads_per_core: number;
  };
}

/** The regressor's POST /model: the weights on 200, undefined otherwise (Kepler then falls back to INIT_URL). */
export async function fetchModelWeights(
  baseUrl: string,
  request: ModelRequest,
): Promise<{ status: number; weights?: KeplerModelWeights }> {
  const response = await fetch(`${baseUrl}/model`, {
    method: "POST",
    headers: { "Content-Type": "application/json; charset=UTF-8" },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status };
  return { status: response.status, weights: JSON.parse(text) as KeplerModelWeights };
}

const COMPONENT_KEYS = ["platform", "package", "core", "uncore", "dram"] as const;

/**
 * Kepler's regressor prediction per component and row: x'_i = x_i / scale_i (0 when the scale is 0 or
 * the name is absent), categorical weights by system value, then the predictor chosen by the trainer name
 * (linear for SGD and unknown names; curve fits on x'_0, the first metric in Kepler's order).
 */
export function predictLikeKepler(
  weights: KeplerModelWeights,
  trainerName: string,
  metrics: readonly string[],
  rows: readonly (readonly number[])[],
  systemFeatures: readonly string[],
  systemValues: readonly string[],
): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const key of COMPONENT_KEYS) {
    const component = weights[key];
    if (component === undefined) continue;
    const all = component.All_Weights;
    const numerical = metrics.map((name) => all.Numerical_Variables?.[name] ?? { scale: 0, weight: 0 });
    const categorical = systemFeatures.reduce(
      (sum, name, i) => sum + (all.Categorical_Variables?.[name]?.[systemValues[i] as string]?.weight ?? 0),
      0,
    );
    const curve = all.CurveFit_Weights ?? [];
    out[key] = rows.map((row) => {
      const x = numerical.map((w, i) => (w.scale === 0 ? 0 : (row[i] as number) / w.scale));
      switch (trainerName) {
        case "ExponentialRegressionTrainer":
          return categorical + (curve[0] as number) * Math.exp((curve[1] as number) * (x[0] as number)) + (curve[2] as number);
        case "LogarithmicRegressionTrainer":
          return (
            categorical + (curve[0] as number) * Math.log((curve[1] as number) * (x[0] as number) + 1) + (curve[2] as number)
          );
        case "LogisticRegressionTrainer":
          return (
            categorical +
            (curve[0] as number) / (1 + Math.exp(-(curve[2] as number) * ((x[0] as number) - (curve[1] as number)))) +
            (curve[3] as number)
          );
        default: {
          let power = (all.Bias_Weight ?? 0) + categorical;
          numerical.forEach((w, i) => {
            if ((w.weight ?? 0) !== 0) power += (w.weight as number) * (x[i] as number);
          });
          return power;
        }
      }
    });
  }
  return out;
}
