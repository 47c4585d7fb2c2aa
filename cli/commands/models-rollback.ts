// `kepler-model models rollback <pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>`: the registry's
// RollbackModel (the newest kept earlier version serves again; estimators switch on WatchModels).
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import type { createRegistryClient } from "../../services/registry/client.js";
import { UsageError } from "../command.js";

type Registry = ReturnType<typeof createRegistryClient>["client"];

const OUTPUT_TYPES: Record<string, OutputType> = {
  AbsPower: OutputType.OUTPUT_TYPE_ABS_POWER,
  DynPower: OutputType.OUTPUT_TYPE_DYN_POWER,
};

/** Rolls a model back; returns the line to print. */
export async function rollbackModelCommand(registry: Registry, model: string | undefined): Promise<string> {
  const parts = (model ?? "").split("/");
  const outputType = OUTPUT_TYPES[parts[2] ?? ""];
  if (parts.length !== 5 || parts.some((part) => part === "") || outputType === undefined)
    throw new UsageError(
      `models rollback needs <pipeline>/<source>/<AbsPower|DynPower>/<FeatureGroup>/<model>, got "${model ?? ""}"`,
    );
  const [pipelineName, energySource, , featureGroup, modelName] = parts as [string, string, string, string, string];
  const response = await registry.rollbackModel({
    location: { pipelineName, energySource, outputType, featureGroup, modelName },
  });
  return `rolled back ${model} from ${response.fromVersion} to ${response.toVersion}; ${response.remainingVersions} earlier versions kept\n`;
}
