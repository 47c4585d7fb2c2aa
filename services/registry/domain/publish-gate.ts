// The publish gate (EP-003): a new version of a model whose held-out error is worse than the serving
// version's by more than a margin is refused, so a bad training run cannot replace a good model unseen.
// It compares `held_out` per component (docs/deviations.md R13); models without it (imported from
// kepler-model-db, whose `mae` is rounded and scored another way) are not gated.
import { FailedPreconditionError } from "../../domain/errors.js";
import { heldOutOf } from "../../models/index.js";
import { locationKey, type StoredModel } from "./stored-model.js";

/** Gate settings: the margin in percent of the serving version's error; negative turns the gate off. */
export interface PublishGate {
  marginPercent: number;
}

/**
 * Off by default: an online pipeline retrains on each new window, whose held-out rows differ from the serving
 * version's, so a gate would keep a lucky early model forever; operators of batch retraining set a margin (10).
 */
export const DEFAULT_GATE_MARGIN_PERCENT = -1;

const watts = (value: number) => `${value.toFixed(4)} W`;

/** Throws FailedPreconditionError naming the component and both errors when the candidate fails the gate. */
export function assertPassesGate(serving: StoredModel | undefined, candidate: StoredModel, gate: PublishGate): void {
  if (serving === undefined || gate.marginPercent < 0) return;
  const before = heldOutOf(serving.metadata);
  const after = heldOutOf(candidate.metadata);
  if (before === undefined || after === undefined) return;
  const servingByComponent = new Map(before.components.map((c) => [c.component, c.maeWatts]));
  for (const component of after.components) {
    const servingMae = servingByComponent.get(component.component);
    if (servingMae === undefined) continue;
    const limit = servingMae * (1 + gate.marginPercent / 100);
    if (component.maeWatts > limit)
      throw new FailedPreconditionError(
        `publish of ${locationKey(candidate.location)} refused by the gate: held-out MAE of ${component.component} ` +
          `${watts(component.maeWatts)} is worse than the serving version's ${watts(servingMae)} by more than ` +
          `${gate.marginPercent} % (limit ${watts(limit)})`,
        { subject: `${locationKey(candidate.location)}:${component.component}` },
      );
  }
}
