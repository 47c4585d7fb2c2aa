// The exporter's online training (services/vm-power/online/online-training.ts) from its flags: the
// trainer's trainModels and the registry's publish and node-type index come in here, so the VM power
// room never reaches into another service.
import type { FeatureGroupName } from "../../services/domain/feature-groups.js";
import type { createRegistryClient } from "../../services/registry/client.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";
import { createRegistryPublisher } from "../../services/trainer/registry-publisher.js";
import type { NodeSpec } from "../../services/node-types/index.js";
import { DEFAULT_VM_TRAINERS, type ExporterDaemonDeps, vmSpecMessage } from "../../services/vm-power/index.js";
import { UsageError } from "../command.js";
import { type Flags, integerFlag, listFlag, numberFlag } from "../flag-readers.js";

export interface OnlineTrainingContext {
  registry: ReturnType<typeof createRegistryClient> | undefined;
  hasHostPower: boolean;
  pipelineName: string;
  featureGroup: FeatureGroupName;
  features: readonly string[];
  machine: string;
  spec: NodeSpec;
}

/** The daemon's online training, or undefined without --online-training-seconds. */
export function onlineTrainingOf(flags: Flags, context: OnlineTrainingContext): ExporterDaemonDeps["onlineTraining"] {
  const intervalSeconds = numberFlag(flags, "online-training-seconds", { positive: true });
  if (intervalSeconds === undefined) return undefined;
  if (context.registry === undefined) throw new UsageError("--online-training-seconds publishes to --registry-address: give it");
  if (!context.hasHostPower)
    throw new UsageError(
      "--online-training-seconds trains from the host's number: give --host-prometheus-url and --host-vm-selector",
    );
  const trainers = listFlag(flags, "online-training-trainers");
  const { client } = context.registry;
  return {
    config: {
      intervalSeconds,
      minRows: integerFlag(flags, "online-training-min-rows", { min: 2 }) ?? 120,
      maxRows: integerFlag(flags, "online-training-max-rows", { min: 2 }) ?? 17_280,
      pipelineName: context.pipelineName,
      featureGroup: context.featureGroup,
      features: context.features,
      trainerNames: trainers.length === 0 ? [...DEFAULT_VM_TRAINERS] : trainers,
      machine: context.machine,
      spec: context.spec,
    },
    deps: {
      async nodeTypeOf(machine, spec) {
        const response = await client.indexMachine({
          pipelineName: context.pipelineName,
          machineId: machine,
          spec: vmSpecMessage(spec),
        });
        return response.nodeType;
      },
      publishModel: createRegistryPublisher(context.registry),
      trainModels,
    },
  };
}
