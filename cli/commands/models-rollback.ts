// `kepler-model models rollback <pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>`: the registry's
// RollbackModel (the newest kept earlier version serves again; estimators switch on WatchModels).
import { outputTypeToProto } from "../../services/kit/transport/output-type-codec.js";
import { isOutputTypeName } from "../../services/models/index.js";
import type { createRegistryClient } from "../../services/registry/client.js";
import { UsageError } from "../command.js";

type Registry = ReturnType<typeof createRegistryClient>["client"];

/** Rolls a model back; returns the line to print. */
export async function rollbackModelCommand(registry: Registry, model: string | undefined): Promise<string> {
  const parts = (model ?? "").split("/");
  const outputName = parts[2];
  if (parts.length !== 5 || parts.some((part) => part === "") || !isOutputTypeName(outputName))
    throw new UsageError(
      `models rollback needs <pipeline>/<source>/<AbsPower|DynPower>/<FeatureGroup>/<model>, got "${model ?? ""}"`,
    );
  const [pipelineName, energySource, , featureGroup, modelName] = parts as [string, string, string, string, string];
  const outputType = outputTypeToProto(outputName);
  const response = await registry.rollbackModel({
    location: { pipelineName, energySource, outputType, featureGroup, modelName },
  });
  return `rolled back ${model} from ${response.fromVersion} to ${response.toVersion}; ${response.remainingVersions} earlier versions kept\n`;
}
