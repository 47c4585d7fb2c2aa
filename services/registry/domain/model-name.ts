// Model names `<TrainerName>_<node_type>` and the trainers whose models Kepler can run from weights.

/** The reference's weight_support_trainers (spec §5.1): models Kepler's Go regressor runs from weight.json. */
export const WEIGHT_SUPPORT_TRAINERS: readonly string[] = [
  "SGDRegressorTrainer",
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
