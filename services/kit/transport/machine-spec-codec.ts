// The one translation between the MachineSpec message and the domain's MachineSpec (node-types).
import type { MachineSpec as MachineSpecMessage } from "../../generated/kepler/model/v1/types.js";
import type { MachineSpec } from "../../node-types/index.js";

export function machineSpecFromProto(message: MachineSpecMessage): MachineSpec {
  return {
    processor: message.processor,
    cores: message.cores,
    chips: message.chips,
    memoryGib: message.memoryGib,
    frequencyMhz: message.frequencyMhz,
    vendor: message.vendor,
    threadsPerCore: message.threadsPerCore,
  };
}

export function machineSpecToProto(spec: MachineSpec): MachineSpecMessage {
  return {
    processor: spec.processor,
    cores: spec.cores,
    chips: spec.chips,
    memoryGib: spec.memoryGib,
    frequencyMhz: spec.frequencyMhz,
    vendor: spec.vendor ?? "",
    threadsPerCore: spec.threadsPerCore ?? 0,
  };
}
