// Fake peers for the pipeline's domain tests: a plain object implementing PipelinePeers (the interface the
// domain depends on) that records every call as one line and answers from a small script. Domain tests
// only; end-to-end tests run the real services.
import { createDataTable, type DataTable } from "../../services/domain/data-table.js";
import type {
  DataOverview,
  IdleProfileSet,
  PipelineFileContent,
  PipelinePeers,
  PipelineTrainerResult,
} from "../../services/pipeline/domain/pipeline-peers.js";

/** How the fake peers answer. */
export interface FakePeerScript {
  readonly overview?: DataOverview;
  /** Extractions that fail, by "<source>/<group>/<level>", with the error message. */
  readonly failingExtractions?: Readonly<Record<string, string>>;
  /** Trainers the trainer service refuses: a Train call naming one fails as a whole. */
  readonly refusedTrainers?: readonly string[];
  /** Trainers that report a failed result, with the reason. */
  readonly failingTrainers?: Readonly<Record<string, string>>;
  /** Node type the index gives a machine. */
  readonly indexedNodeType?: number;
  /** The pipeline's stored metadata.json. */
  readonly previousMetadata?: string;
  /** Called at the start of each Train call, before its results (e.g. to cancel the run there). */
  readonly onTrain?: (trainerNames: readonly string[]) => void;
}

/** What the fake recorded. */
export interface FakePeerLog {
  /** One line per call, in call order. */
  readonly calls: string[];
  /** The files of the last writePipelineMetadata, metadata.json first. */
  written?: { metadataJson: string; files: readonly PipelineFileContent[] };
}

/** Rows of every extracted table: timestamps 100, 103, 106. */
export const FAKE_ROW_COUNT = 3;

function table(level: "node" | "container"): DataTable {
  const timestamps = [100, 103, 106];
  const columns: Array<[string, number[]]> = [
    ["bpf_cpu_time_ms", [1, 2, 3]],
    ["package_power", [10, 12, 15]],
  ];
  return level === "node" ? createDataTable(timestamps, columns) : createDataTable(timestamps, columns, ["a", "b", "c"]);
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Fake peers and their call log. */
export function createFakePipelinePeers(script: FakePeerScript = {}): { peers: PipelinePeers; log: FakePeerLog } {
  const log: FakePeerLog = { calls: [] };
  const overview = script.overview ?? { validFeatureGroups: ["BPFOnly"], energySources: ["rapl-sysfs"] };
  const peers: PipelinePeers = {
    async queryPrometheus(window) {
      log.calls.push(`queryPrometheus ${window.baseUrl}`);
      return new TextEncoder().encode('{"status":"success"}');
    },
    async describeData() {
      log.calls.push("describeData");
      return overview;
    },
    async extract(_response, spec, signal) {
      const key = `${spec.energySource}/${spec.featureGroup}/${spec.level}`;
      log.calls.push(`extract ${key}`);
      await settle();
      signal?.throwIfAborted();
      const failure = script.failingExtractions?.[key];
      if (failure !== undefined) throw new Error(failure);
      return table(spec.level);
    },
    async buildIdleProfiles(_response, options): Promise<IdleProfileSet> {
      log.calls.push(`buildIdleProfiles ${options.energySources.join(",")} node type ${options.nodeType}`);
      const profiles = [
        { energySource: "rapl-sysfs", component: "package", nodeType: options.nodeType, minWatts: 5, maxWatts: 6, unitCount: 1 },
      ];
      return { profiles, backgroundContainerNames: ["idle-daemon"] };
    },
    async isolate(containers, spec, signal) {
      log.calls.push(`isolate ${spec.energySource} ${spec.isolator}`);
      await settle();
      signal?.throwIfAborted();
      return {
        table: createDataTable(containers.timestamps, [["package_power", [4, 6, 9]]]),
        isolator: spec.isolator,
        notices: [],
      };
    },
    async train(_table, spec, onResult, signal) {
      log.calls.push(`train ${spec.energySource}/${spec.featureGroup}/${spec.outputType} ${spec.trainerNames.join(",")}`);
      script.onTrain?.(spec.trainerNames);
      await settle();
      signal?.throwIfAborted();
      const refused = spec.trainerNames.find((name) => script.refusedTrainers?.includes(name));
      if (refused !== undefined) throw new Error(`unknown trainer ${refused}`);
      const nodeType = spec.nodeType ?? 0;
      for (const trainerName of spec.trainerNames) {
        const failure = script.failingTrainers?.[trainerName];
        const result: PipelineTrainerResult = {
          trainerName,
          nodeType,
          succeeded: failure === undefined,
          failureReason: failure ?? "",
          modelName: `${trainerName}_${nodeType}`,
          energySource: spec.energySource,
          outputType: spec.outputType,
          featureGroup: spec.featureGroup,
          components: [],
          maeWatts: failure === undefined ? 1.5 : 0,
          mapePercent: failure === undefined ? 2.5 : 0,
          trainRowCount: 2,
          testRowCount: 1,
          hasWeights: failure === undefined,
          published: failure === undefined,
        };
        onResult(result);
      }
    },
    async indexMachine(pipelineName, machineId) {
      log.calls.push(`indexMachine ${pipelineName} ${machineId}`);
      return { nodeType: script.indexedNodeType ?? 1, created: true };
    },
    async readPipelineMetadata(pipelineName) {
      log.calls.push(`readPipelineMetadata ${pipelineName}`);
      return script.previousMetadata;
    },
    async readStoredProfiles(pipelineName) {
      log.calls.push(`readStoredProfiles ${pipelineName}`);
      return [];
    },
    async writePipelineMetadata(pipelineName, metadataJson, files) {
      log.calls.push(`writePipelineMetadata ${pipelineName}`);
      log.written = { metadataJson, files };
    },
  };
  return { peers, log };
}
