// Model names `<TrainerName>_<node_type>` and the trainers whose models Kepler can run from weights.

/**
 * Models Kepler's Go regressor runs from weight.json: the reference's weight_support_trainers (spec
 * §5.1) plus LinearRegressionTrainer, which has a weight.json and whose weights Kepler runs with its
 * linear predictor (the reference left it out; docs/deviations.md). Same set as the trainers that
 * ListTrainers calls weight-capable.
 */
export const WEIGHT_SUPPORT_TRAINERS: readonly string[] = [
  "SGDRegressorTrainer",
  "LinearRegressionTrainer",
  "LogarithmicRegressionTrainer",
  "LogisticRegressionTrainer",
  "ExponentialRegressionTrainer",
];

/** A model name split into trainer and node type; undefined when it does not end in `_<integer>`. */
export function parseModelName(modelName: string): { trainerName: string; nodeType: number } | undefined {
  const match = /^(.+)_(-?\d+)$/.exec(modelName);
  if (match === null) return undefined;
  return { trainerName: match[1] as string, nodeType: Number(match[2]) };
}

/** True for trainers whose weight.json Kepler's regressor reads. */
export function isWeightSupportTrainer(trainerName: string): boolean {
  return WEIGHT_SUPPORT_TRAINERS.includes(trainerName);
}
