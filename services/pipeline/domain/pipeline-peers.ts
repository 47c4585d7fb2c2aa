// What the pipeline needs from the other services, in domain terms. The service implements it over the
// peers' gRPC clients (grpc-peers.ts); nothing here knows about gRPC or generated message types.
import type { DataTable } from "../../domain/data-table.js";
import type { EnergySource } from "../../domain/energy-sources.js";
import type { OutputTypeName } from "../../models/index.js";
import type { MachineSpec } from "../../node-types/index.js";

/** A live Prometheus window (reference `kepler-model query`). */
export interface PrometheusWindowSpec {
  readonly baseUrl: string;
  readonly startTimeSeconds: number;
  readonly endTimeSeconds: number;
  /** 0 means the reference default of 3 s. */
  readonly stepSeconds: number;
  readonly thirdPartyMetricNames: readonly string[];
  /** Empty means `kepler_`. */
  readonly metricPrefix: string;
}

/** What the data holds, per the extractor. */
export interface DataOverview {
  /** The reference's valid groups, in its order: what a run trains by default. */
  readonly validFeatureGroups: readonly string[];
  /** Valid groups beyond the reference's (IRQOnly, CgroupOnly, KubeletOnly): trained when requested. */
  readonly extraFeatureGroups?: readonly string[];
  readonly energySources: readonly string[];
}

export type ExtractorName = "default" | "smooth";
export type IsolatorName = "none" | "min" | "profile" | "trainer";

/** One extraction. */
export interface ExtractSpec {
  readonly energySource: EnergySource;
  readonly featureGroup: string;
  readonly level: "node" | "container";
  readonly extractor: ExtractorName;
  readonly nodeType?: number;
  readonly useVmMetrics: boolean;
  readonly thirdPartyMetricNames: readonly string[];
}

/** The idle power of one component of one node type (the isolator's IdleProfile message). */
export interface IdleProfileEntry {
  readonly energySource: string;
  readonly component: string;
  readonly nodeType: number;
  readonly minWatts: number;
  readonly maxWatts: number;
  readonly unitCount: number;
}

/** Idle profiles as the isolator built them (or as stored in the pipeline folder). */
export interface IdleProfileSet {
  readonly profiles: readonly IdleProfileEntry[];
  readonly backgroundContainerNames: readonly string[];
}

/** One isolation of a container-level table. */
export interface IsolateSpec {
  readonly isolator: IsolatorName;
  readonly energySource: EnergySource;
  readonly nodeType?: number;
  readonly targetHints: readonly string[];
  readonly backgroundHints: readonly string[];
  readonly absPipelineName: string;
  readonly idleProfiles?: IdleProfileSet;
}

/** What an isolation gave. */
export interface IsolatedTable {
  readonly table: DataTable;
  /** The isolator actually applied (`min` when the profile isolator fell back). */
  readonly isolator: IsolatorName;
  readonly notices: readonly string[];
}

/** One Train call: the trainers of one table, fitted side by side by the trainer service. */
export interface TrainSpec {
  readonly pipelineName: string;
  readonly energySource: EnergySource;
  readonly featureGroup: string;
  readonly outputType: OutputTypeName;
  readonly trainerNames: readonly string[];
  readonly nodeType?: number;
  readonly machineSpec?: MachineSpec;
  readonly seed: number;
  /** Model features instead of the group's (ThirdParty). */
  readonly featureNames: readonly string[];
  readonly continueFromCheckpoint: boolean;
}

/** A power component's accuracy on the test rows. */
export interface ComponentAccuracy {
  readonly component: string;
  readonly maeWatts: number;
  readonly mapePercent: number;
}

/** The outcome of one trainer on one (source, feature group, output type, node type). */
export interface PipelineTrainerResult {
  readonly trainerName: string;
  /** -1 when the trainer failed before a node type was known. */
  readonly nodeType: number;
  readonly succeeded: boolean;
  /** Why it failed; empty on success. */
  readonly failureReason: string;
  readonly modelName: string;
  readonly energySource: EnergySource;
  readonly outputType: OutputTypeName;
  readonly featureGroup: string;
  readonly components: readonly ComponentAccuracy[];
  readonly maeWatts: number;
  readonly mapePercent: number;
  readonly trainRowCount: number;
  readonly testRowCount: number;
  readonly hasWeights: boolean;
  /** True when the model is stored in the registry. */
  readonly published: boolean;
}

/** One progress step. */
export interface PipelineProgress {
  readonly stage: string;
  readonly subject: string;
  readonly done: number;
  readonly total: number;
  readonly message: string;
}

/** A pipeline-level file beside metadata.json: `train_arguments.json`, `preprocessed_data/<name>.csv`. */
export interface PipelineFileContent {
  readonly path: string;
  readonly text: string;
}

/** The other services, as the pipeline uses them. Every method may throw the domain errors. */
export interface PipelinePeers {
  /** Reads a live window as a saved Prometheus response (JSON bytes). */
  queryPrometheus(window: PrometheusWindowSpec, signal?: AbortSignal): Promise<Uint8Array>;
  /** Valid feature groups and energy sources of a response. */
  describeData(
    response: Uint8Array,
    options: { useVmMetrics: boolean; thirdPartyMetricNames: readonly string[] },
    signal?: AbortSignal,
  ): Promise<DataOverview>;
  extract(response: Uint8Array, spec: ExtractSpec, signal?: AbortSignal): Promise<DataTable>;
  buildIdleProfiles(
    idleResponse: Uint8Array,
    options: { energySources: readonly EnergySource[]; nodeType: number; useVmMetrics: boolean },
    signal?: AbortSignal,
  ): Promise<IdleProfileSet>;
  isolate(table: DataTable, spec: IsolateSpec, signal?: AbortSignal): Promise<IsolatedTable>;
  /**
   * Trains the spec's trainers in one call (the table is sent once); each result (also a failed trainer's)
   * reaches `onResult` as it is published, in node type x trainer order.
   */
  train(
    table: DataTable,
    spec: TrainSpec,
    onResult: (result: PipelineTrainerResult) => void,
    signal?: AbortSignal,
  ): Promise<void>;
  /** Indexes a training machine in the pipeline's node_type_index.json; returns its node type. */
  indexMachine(pipelineName: string, machineId: string, spec: MachineSpec): Promise<{ nodeType: number; created: boolean }>;
  /** The pipeline's metadata.json text, or undefined when it has none. */
  readPipelineMetadata(pipelineName: string): Promise<string | undefined>;
  /** The pipeline's stored idle-profile files (`profile/*.json`); none for an unknown pipeline. */
  readStoredProfiles(pipelineName: string): Promise<PipelineFileContent[]>;
  /** Writes metadata.json and the other pipeline-level files (paths relative to the pipeline folder). */
  writePipelineMetadata(pipelineName: string, metadataJson: string, files: readonly PipelineFileContent[]): Promise<void>;
}
