// Which feature groups a model request can use, beyond the reference's fixed lists: the extra groups
// (IRQOnly, CgroupOnly, KubeletOnly) and ThirdParty, whose features are whatever metrics its models
// were trained on. A model is a candidate only when the request lists every one of its features, so
// a ThirdParty model (or a WorkloadOnly one trained with third-party metrics) is chosen exactly when
// the caller can feed it.
import { validExtraFeatureGroups, validFeatureGroups, validGuestFeatureGroups } from "../../domain/feature-groups.js";
import type { OutputTypeName } from "../../models/index.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import type { StoredModel } from "./stored-model.js";

/** True when every feature of the model is among the available ones. */
function modelCoveredBy(model: StoredModel, available: ReadonlySet<string>): boolean {
  return model.features.every((feature) => available.has(feature));
}

/**
 * The groups to scan for a request, in the reference's order, then the extra groups, then the VM
 * groups, then ThirdParty when one of its models is covered.
 */
export function coveredFeatureGroups(
  store: ModelCatalogue,
  where: { pipelineName: string; energySource: string; outputType: OutputTypeName },
  available: readonly string[],
): string[] {
  const have = new Set(available);
  const fixed: string[] = [
    ...validFeatureGroups(available),
    ...validExtraFeatureGroups(available),
    ...validGuestFeatureGroups(available),
  ];
  const thirdParty = store
    .group(where.pipelineName, where.energySource, where.outputType, "ThirdParty")
    .some((model) => modelCoveredBy(model, have));
  return thirdParty ? [...fixed, "ThirdParty"] : fixed;
}

/** A group's models the request can feed. */
export function coveredModels(models: readonly StoredModel[], available: readonly string[]): StoredModel[] {
  const have = new Set(available);
  return models.filter((model) => modelCoveredBy(model, have));
}
