// Online training from the host's own number (README "VMs under Kepler 0.10", 5): while the exporter
// serves the host Kepler's watts for this VM, each tick's guest features and those watts make a training
// row. Every `intervalSeconds`, with at least `minRows` rows (the newest `maxRows` kept), the rows are
// trained as vm-train trains a size (the caller's trainers, the lag columns kept where they lower the
// test-split MAE enough) and published to the registry as a new version of this VM size's model, through
// the registry's own lifecycle (earlier versions kept, the publish gate, its signature). The exporter's
// next model refresh serves it, so the model it falls back to when the host goes away is the host's own.
import { createDataTable, type DataTable } from "../../domain/data-table.js";
import { componentsOf, powerColumn } from "../../domain/energy-sources.js";
import type { FeatureGroupName } from "../../domain/feature-groups.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import type { ModelArchive } from "../../models/index.js";
import type { NodeSpec } from "../../node-types/index.js";
import { isLagWorthKeeping, type VmTrainCall } from "../training/train-vm-models.js";
import { LAG_SUFFIX, laggedFeatures } from "../training/vm-feature-transforms.js";

const ZONES = componentsOf("rapl-sysfs");

/** One tick while the host's number is live: the guest's features now and at the previous tick, the host's watts. */
export interface HostSample {
  timestampSeconds: number;
  features: ReadonlyMap<string, number>;
  previousFeatures: ReadonlyMap<string, number> | undefined;
  /** Per rapl-sysfs zone, in ZONES order. */
  watts: Float64Array;
}

export interface OnlineTrainingConfig {
  intervalSeconds: number;
  minRows: number;
  maxRows: number;
  pipelineName: string;
  featureGroup: FeatureGroupName;
  /** The group's features (the columns a row carries). */
  features: readonly string[];
  trainerNames: readonly string[];
  /** This VM's name and spec, indexed as vm-train indexes a VM (its size is the node type). */
  machine: string;
  spec: NodeSpec;
}

/** What one trainer's result must say (the trainer's TrainingResult has these fields). */
export interface OnlineResult {
  trainerName: string;
  maeWatts: number;
  outcome: "succeeded" | "failed";
  failureReason?: string;
  archive?: ModelArchive;
}

export interface OnlineTrainingDeps {
  nodeTypeOf(machine: string, spec: NodeSpec): Promise<number>;
  publishModel(archive: ModelArchive): Promise<void>;
  trainModels(
    call: VmTrainCall,
    deps: { publishModel(archive: ModelArchive): Promise<void> },
  ): Promise<{ results: OnlineResult[] }>;
  logger: DomainLogger;
}

/** The rows collected so far (the newest `maxRows`); rows without a complete feature set are left out. */
export class OnlineTrainingRows {
  private rows: HostSample[] = [];

  constructor(
    private readonly features: readonly string[],
    private readonly maxRows: number,
  ) {}

  get count(): number {
    return this.rows.length;
  }

  add(sample: HostSample): void {
    const complete = (values: ReadonlyMap<string, number> | undefined) =>
      values !== undefined && this.features.every((f) => Number.isFinite(values.get(f)));
    if (!complete(sample.features) || !complete(sample.previousFeatures) || !sample.watts.every(Number.isFinite)) return;
    this.rows.push(sample);
    if (this.rows.length > this.maxRows) this.rows.splice(0, this.rows.length - this.maxRows);
  }

  /** The rows as a training table: the features, their `_lag1`, `<zone>_power`, node_type. */
  table(nodeType: number): DataTable {
    const lagged = laggedFeatures(this.features);
    const column = (pick: (row: HostSample) => number) => Float64Array.from(this.rows, pick);
    return createDataTable(
      this.rows.map((r) => r.timestampSeconds),
      [
        ...this.features.map((f) => [f, column((r) => r.features.get(f)!)] as const),
        ...lagged.map((f) => [f, column((r) => r.previousFeatures!.get(f.slice(0, -LAG_SUFFIX.length))!)] as const),
        ...ZONES.map((zone, z) => [powerColumn(zone), column((r) => r.watts[z]!)] as const),
        ["node_type", column(() => nodeType)] as const,
      ],
    );
  }
}

/**
 * Trains the rows and publishes, per trainer, the plain or lagged model (as vm-train); returns the results
 * published or refused (a refused publish, e.g. by the registry's gate, is a failed result saying why).
 */
export async function trainOnlineRows(
  rows: OnlineTrainingRows,
  config: OnlineTrainingConfig,
  deps: OnlineTrainingDeps,
): Promise<OnlineResult[]> {
  const nodeType = await deps.nodeTypeOf(config.machine, config.spec);
  const call: VmTrainCall = {
    table: rows.table(nodeType),
    energySource: "rapl-sysfs",
    featureGroup: config.featureGroup,
    outputType: "AbsPower",
    trainerNames: config.trainerNames,
    nodeType,
    seed: 0,
    pipelineName: config.pipelineName,
    machineSpec: {
      processor: String(config.spec.processor),
      cores: Number(config.spec.cores),
      chips: Number(config.spec.chips),
      memory: Number(config.spec.memory),
      frequency: Number(config.spec.frequency),
    },
    featureNames: config.features,
  };
  const unpublished = { publishModel: async () => {} };
  const plain = await deps.trainModels(call, unpublished);
  const lagged = await deps.trainModels(
    { ...call, featureNames: [...config.features, ...laggedFeatures(config.features)] },
    unpublished,
  );
  const published: OnlineResult[] = [];
  for (const result of plain.results) {
    const other = lagged.results.find((r) => r.trainerName === result.trainerName);
    const chosen = other?.outcome === "succeeded" && isLagWorthKeeping(other.maeWatts, result.maeWatts) ? other : result;
    if (chosen.outcome !== "succeeded" || chosen.archive === undefined) {
      published.push(chosen);
      continue;
    }
    try {
      await deps.publishModel(chosen.archive);
      published.push(chosen);
    } catch (error) {
      published.push({ ...chosen, outcome: "failed", failureReason: (error as Error).message });
    }
  }
  return published;
}

/** What the loop did so far (exporter /metrics). */
export interface OnlineTrainingStatus {
  /** Models the registry took. */
  published: number;
  /** Models not published: the fit failed or the registry refused them (e.g. its gate). */
  notPublished: number;
  /** When a model was last published, Unix seconds. */
  lastPublishedSeconds: number | undefined;
}

/** The running loop. */
export interface OnlineTraining {
  readonly rows: OnlineTrainingRows;
  readonly status: OnlineTrainingStatus;
  /** Trains and publishes now (the interval's work); resolves with the results, empty when too few rows. */
  runOnce(): Promise<OnlineResult[]>;
  stop(): void;
}

/** The loop: every interval, trains and publishes when enough rows are in (see the file comment). */
export function startOnlineTraining(
  rows: OnlineTrainingRows,
  config: OnlineTrainingConfig,
  deps: OnlineTrainingDeps & { onPublished?(results: OnlineResult[]): Promise<void> | void },
): OnlineTraining {
  let running: Promise<OnlineResult[]> | undefined;
  const status: OnlineTrainingStatus = { published: 0, notPublished: 0, lastPublishedSeconds: undefined };
  const runOnce = async (): Promise<OnlineResult[]> => {
    if (running !== undefined) return running;
    if (rows.count < config.minRows) {
      deps.logger.info({ rows: rows.count, minRows: config.minRows }, "online training: waiting for more rows from the host");
      return [];
    }
    running = trainOnlineRows(rows, config, deps)
      .then(async (results) => {
        for (const r of results)
          if (r.outcome === "succeeded") {
            status.published++;
            status.lastPublishedSeconds = Date.now() / 1000;
            deps.logger.info({ trainer: r.trainerName, rows: rows.count, maeWatts: r.maeWatts }, "online training: published");
          } else {
            status.notPublished++;
            deps.logger.warn({ trainer: r.trainerName, reason: r.failureReason }, "online training: not published");
          }
        await deps.onPublished?.(results);
        return results;
      })
      .catch((error: unknown) => {
        deps.logger.warn({ reason: (error as Error).message }, "online training failed; retrying at the next interval");
        return [];
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void runOnce(), config.intervalSeconds * 1000);
  return { rows, status, runOnce, stop: () => clearInterval(timer) };
}
