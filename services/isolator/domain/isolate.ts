// The isolators behind one entry point (reference §4): a container-level table -> a DynPower table with
// one row per timestamp, labels never negative, plus a summary of what was removed.
import { type DataTable, findColumn } from "../../domain/data-table.js";
import type { EnergySource } from "../../domain/energy-sources.js";
import { FailedPreconditionError, InvalidInputError } from "../../domain/errors.js";
import type { BackgroundModelSource } from "./background-models.js";
import { assertContainerRows } from "./container-split.js";
import type { IdleProfile } from "./idle-profile.js";
import { NODE_TYPE_COLUMN, labelColumnsOf } from "./label-columns.js";
import { isolateMin } from "./min-isolator.js";
import { isolateWithProfiles } from "./profile-isolator.js";
import { squeezeContainerTable } from "./squeeze.js";
import { isolateWithAbsModels } from "./train-isolator.js";

/** The isolators, by their CLI names. */
export const ISOLATOR_NAMES = ["none", "min", "profile", "trainer"] as const;
export type IsolatorName = (typeof ISOLATOR_NAMES)[number];

export interface IsolateOptions {
  readonly isolator: IsolatorName;
  readonly energySource: EnergySource;
  /** Written to the node_type column before isolating; undefined keeps the table's. */
  readonly nodeType?: number;
  /** Profile isolator: the idle profiles. */
  readonly idleProfiles?: readonly IdleProfile[];
  /** Profile isolator: container names seen while idle (background). */
  readonly backgroundContainerNames?: readonly string[];
  /** Profile isolator: use the min isolator when a node type has no profile (the documented rule). */
  readonly fallBackToMin?: boolean;
  /** Trainer isolator: target container-name hints. */
  readonly targetHints?: readonly string[];
  /** Trainer isolator: background container-name hints. */
  readonly backgroundHints?: readonly string[];
  /** Trainer isolator: the pipeline of the AbsPower models. */
  readonly absPipelineName?: string;
}

/** A progress step of a slow isolation (trainer isolator: one per model evaluated). */
export interface IsolateProgress {
  readonly stage: string;
  readonly subject: string;
  readonly done: number;
  readonly total: number;
  readonly message: string;
}

export interface IsolateDeps {
  /** Needed by the trainer isolator. */
  readonly backgroundModels?: BackgroundModelSource;
  readonly onProgress?: (event: IsolateProgress) => void;
}

/** What an isolation removed and kept. */
export interface IsolationSummary {
  /** The isolator applied (`min` when the profile isolator fell back). */
  readonly isolator: IsolatorName;
  /** Watts subtracted from every row per label column (0 for none and trainer). */
  readonly backgrounds: ReadonlyArray<{ readonly labelColumn: string; readonly watts: number }>;
  readonly backgroundContainerNames: readonly string[];
  readonly targetContainerCount: number;
  /** Trainer isolator: the AbsPower model chosen. */
  readonly absModel?: {
    readonly modelName: string;
    readonly featureGroup: string;
    readonly maeWatts: number;
    readonly maxCorrelation: number;
  };
  readonly rowCount: number;
  readonly notices: readonly string[];
}

export interface IsolationResult {
  /** Columns: ratios, features, labels, node_type; one row per timestamp; no row ids. */
  readonly table: DataTable;
  readonly summary: IsolationSummary;
}

/** Isolates the DynPower labels of a container-level table with the chosen isolator. */
export async function isolate(input: DataTable, options: IsolateOptions, deps: IsolateDeps = {}): Promise<IsolationResult> {
  const rowIds = assertContainerRows(input);
  const table = options.nodeType === undefined ? input : withNodeType(input, options.nodeType);
  const labels = labelColumnsOf(table, options.energySource);
  const containerCount = new Set(rowIds).size;
  const zeroBackgrounds = labels.map((labelColumn) => ({ labelColumn, watts: 0 }));
  const summaryOf = (isolator: IsolatorName, result: DataTable, rest: Partial<IsolationSummary>): IsolationResult => ({
    table: result,
    summary: {
      isolator,
      backgrounds: zeroBackgrounds,
      backgroundContainerNames: [],
      targetContainerCount: containerCount,
      rowCount: result.rowCount,
      notices: [],
      ...rest,
    },
  });

  const applyMin = (notices: string[]): IsolationResult => {
    const min = isolateMin(squeezeContainerTable(table, labels), labels);
    return summaryOf("min", min.table, {
      backgrounds: labels.map((labelColumn, k) => ({ labelColumn, watts: min.backgroundWatts[k]! })),
      notices,
    });
  };

  switch (options.isolator) {
    case "none":
      return summaryOf("none", squeezeContainerTable(table, labels), {});
    case "min":
      return applyMin([]);
    case "profile": {
      const profiles = options.idleProfiles ?? [];
      const result = isolateWithProfiles(table, labels, options.energySource, profiles, options.backgroundContainerNames ?? []);
      if (result.kind === "missing-profile") {
        const missing = result.missing.map(({ component, nodeType }) => `${component} on node type ${nodeType}`).join(", ");
        if (options.fallBackToMin) {
          return applyMin([
            `no idle profile for ${missing}: the min isolator was applied instead (profile if a profile exists for the node type, else min)`,
          ]);
        }
        throw new FailedPreconditionError(
          `the profile isolator has no idle profile for ${missing} of ${options.energySource}: build profiles from idle data of that node type (BuildIdleProfile) or allow the fallback to min`,
        );
      }
      const notices: string[] = [];
      if (result.backgroundWatts.length > 1) {
        notices.push(
          `node types ${result.backgroundWatts.map((entry) => entry.nodeType).join(", ")} have different idle backgrounds; the summary lists node type ${result.backgroundWatts[0]!.nodeType}'s`,
        );
      }
      if (result.clampedCount > 0) {
        notices.push(
          `${result.clampedCount} label values were below the idle background and were clamped at 0 (DynPower labels are never negative)`,
        );
      }
      return summaryOf("profile", result.table, {
        backgrounds: labels.map((labelColumn, k) => ({ labelColumn, watts: result.backgroundWatts[0]!.watts[k]! })),
        backgroundContainerNames: result.backgroundContainerNames,
        targetContainerCount: result.targetContainerCount,
        notices,
      });
    }
    case "trainer": {
      if (deps.backgroundModels === undefined)
        throw new FailedPreconditionError("the trainer isolator needs access to the registry's AbsPower models");
      const absPipelineName = options.absPipelineName ?? "";
      const result = await isolateWithAbsModels(
        table,
        labels,
        {
          energySource: options.energySource,
          absPipelineName,
          hints: { targetHints: options.targetHints ?? [], backgroundHints: options.backgroundHints ?? [] },
          onModel: (done, total, modelName) =>
            deps.onProgress?.({
              stage: "isolate",
              subject: modelName,
              done,
              total,
              message: `predicting background power with ${modelName}`,
            }),
        },
        deps.backgroundModels,
      );
      const notices = [...result.notices];
      if (result.clampedCount > 0) {
        notices.push(
          `${result.clampedCount} rows had a predicted background above node power; their dynamic power was clamped at 0`,
        );
      }
      return summaryOf("trainer", result.table, {
        backgroundContainerNames: result.backgroundContainerNames,
        targetContainerCount: result.targetContainerCount,
        absModel: result.chosen,
        notices,
      });
    }
    default:
      throw new InvalidInputError(
        "isolator",
        `unknown isolator "${String(options.isolator)}" (known: ${ISOLATOR_NAMES.join(", ")})`,
      );
  }
}

function withNodeType(table: DataTable, nodeType: number): DataTable {
  const index = findColumn(table, NODE_TYPE_COLUMN);
  const rows = table.rowCount;
  if (index < 0) {
    const values = new Float64Array(table.values.length + rows);
    values.set(table.values);
    values.fill(nodeType, table.values.length);
    return { ...table, columnNames: [...table.columnNames, NODE_TYPE_COLUMN], values };
  }
  const values = table.values.slice();
  values.fill(nodeType, index * rows, (index + 1) * rows);
  return { ...table, values };
}
