// A VM's machine spec, as its node type is indexed and as the exporter describes its own VM to the
// registry and the estimator (a guest cannot see its host's processor or clock).
import type { MachineSpec } from "../../generated/kepler/model/v1/types.js";
import { machineSpecToProto } from "../../kit/transport/machine-spec-codec.js";
import { machineSpecOfNode, type NodeSpec } from "../../node-types/index.js";

/** The frequency of every VM spec: a guest cannot see its host's clock, and a node type needs a complete spec. */
export const VM_FREQUENCY_MHZ = 1;

/**
 * The machine spec of a VM, as its node type is indexed and as the exporter describes its own VM: the
 * vCPU count as cores, memory in GiB (rounded), processor "vm", one chip, frequency VM_FREQUENCY_MHZ.
 */
export function vmSpec(vcpus: number, memoryBytes: number): NodeSpec {
  return {
    processor: "vm",
    cores: vcpus,
    chips: 1,
    memory: Math.max(1, Math.round(memoryBytes / 2 ** 30)),
    frequency: VM_FREQUENCY_MHZ,
  };
}

/** The spec as the MachineSpec message of SelectModel, Estimate and IndexMachine. */
export function vmSpecMessage(spec: NodeSpec): MachineSpec {
  return machineSpecToProto(machineSpecOfNode(spec));
}
