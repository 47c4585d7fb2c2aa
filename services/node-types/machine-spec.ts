// A machine's hardware as the services pass it around: the fields of the MachineSpec message, in named
// units. NodeSpec (node-spec.ts) is the reference's five matching attributes with null for unknown;
// the two conversions between them live here, and the one to and from the message in
// kit/transport/machine-spec-codec.ts.
import { type NodeSpec, nodeSpecFrom } from "./node-spec.js";

/** processor, cores, chips, memory and frequency are what node types match on; 0 and "" are unknown. */
export interface MachineSpec {
  readonly processor: string;
  /** Logical CPUs. */
  readonly cores: number;
  /** Physical packages (sockets). */
  readonly chips: number;
  readonly memoryGib: number;
  /** Maximum frequency, rounded to 100. */
  readonly frequencyMhz: number;
  /** Informational, not matched; undefined or "" when unknown. */
  readonly vendor?: string;
  /** Informational, not matched; undefined or 0 when unknown. */
  readonly threadsPerCore?: number;
}

/** The five matching attributes; zero and empty become unknown (null). */
export function nodeSpecOfMachine(machine: MachineSpec): NodeSpec {
  return nodeSpecFrom({
    processor: machine.processor,
    cores: machine.cores,
    chips: machine.chips,
    memory: machine.memoryGib,
    frequency: machine.frequencyMhz,
  });
}

function whole(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}

/** A node spec as a machine: unknown attributes become 0 or "", numbers whole; nothing informational. */
export function machineSpecOfNode(spec: NodeSpec): MachineSpec {
  return {
    processor: spec.processor === null ? "" : String(spec.processor),
    cores: whole(spec.cores),
    chips: whole(spec.chips),
    memoryGib: whole(spec.memory),
    frequencyMhz: whole(spec.frequency),
    vendor: "",
    threadsPerCore: 0,
  };
}
