// Model names `<TrainerName>_<node_type>`. Which trainers Kepler can run from weights is no list here:
// a trainer writes weight.json exactly when its definition is weight-capable (the trainer registry).

/** A model name split into trainer and node type; undefined when it does not end in `_<integer>`. */
export function parseModelName(modelName: string): { trainerName: string; nodeType: number } | undefined {
  const match = /^(.+)_(-?\d+)$/.exec(modelName);
  if (match === null) return undefined;
  return { trainerName: match[1] as string, nodeType: Number(match[2]) };
}
