// The training table as the trainers need it: the feature matrix, the ratio column, one label vector
// per component and the node type of every row, checked once at the edge (spec §5.3 apply_ratio).
import { columnStats, type Matrix } from "../../../wasm-core/src/index.js";
import { type DataTable, findColumn, getColumn } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";
import { joinCapped } from "../../domain/list-text.js";
import { powerColumn } from "../../domain/energy-sources.js";

/** The reference's node-type column. */
export const NODE_TYPE_COLUMN = "node_type";
/** The reference's ratio column for rapl sources (sic: `packge`, spec §3.5). */
export const PACKAGE_RATIO_COLUMN = "packge_ratio_package";

/** Columns resolved and checked. */
export interface TrainingTable {
  rowCount: number;
  timestamps: Float64Array;
  /** The model features, in order, column-major. */
  features: Matrix;
  /** packge_ratio_package per row, when the source has package-unit components and the table has the column. */
  ratio?: Float64Array;
  /** Component -> `<component>_power` per row. */
  labels: ReadonlyMap<string, Float64Array>;
  /** Node type per row. */
  nodeTypes: Float64Array;
}

// Energy components measured per CPU package carry the ratio column (reference get_energy_unit).
const PACKAGE_UNIT_COMPONENTS = new Set(["package", "core", "uncore", "dram"]);

function assertFinite(table: DataTable, names: readonly string[], matrix: Matrix): void {
  const stats = columnStats(matrix);
  const bad = stats.findIndex((s) => s.nonFiniteCount > 0);
  if (bad >= 0) {
    throw new InvalidInputError(
      "table.values",
      `column ${names[bad]} has ${stats[bad]?.nonFiniteCount} NaN or infinite value(s) in ${table.rowCount} rows; drop or fill those rows before training`,
    );
  }
}

function columnsMatrix(table: DataTable, names: readonly string[], role: string): Matrix {
  const values = new Float64Array(table.rowCount * names.length);
  names.forEach((name, j) => {
    if (findColumn(table, name) < 0) {
      throw new InvalidInputError(
        "table.column_names",
        `missing ${role} column ${name} (have: ${joinCapped(table.columnNames)})`,
      );
    }
    values.set(getColumn(table, name), j * table.rowCount);
  });
  return { rows: table.rowCount, cols: names.length, values };
}

/**
 * Resolves features, labels, the ratio column and node types. A table without a `node_type` column
 * is one node type, `nodeTypeOverride` or 0 (the reference's default_node_type).
 */
export function prepareTrainingTable(
  table: DataTable,
  features: readonly string[],
  components: readonly string[],
  nodeTypeOverride?: number,
): TrainingTable {
  if (table.rowCount === 0) throw new InvalidInputError("table", "the training table has no rows");
  if (features.length === 0) throw new InvalidInputError("feature_names", "a model needs at least one feature");
  const featureMatrix = columnsMatrix(table, features, "feature");
  assertFinite(table, features, featureMatrix);
  const labelNames = components.map(powerColumn);
  const labelMatrix = columnsMatrix(table, labelNames, "power label");
  assertFinite(table, labelNames, labelMatrix);
  const labels = new Map(
    components.map((c, j) => [c, labelMatrix.values.subarray(j * table.rowCount, (j + 1) * table.rowCount)]),
  );

  let ratio: Float64Array | undefined;
  if (components.some((c) => PACKAGE_UNIT_COMPONENTS.has(c)) && findColumn(table, PACKAGE_RATIO_COLUMN) >= 0) {
    const ratioMatrix = columnsMatrix(table, [PACKAGE_RATIO_COLUMN], "ratio");
    assertFinite(table, [PACKAGE_RATIO_COLUMN], ratioMatrix);
    ratio = ratioMatrix.values;
  }

  let nodeTypes: Float64Array;
  if (nodeTypeOverride !== undefined) {
    if (!Number.isInteger(nodeTypeOverride))
      throw new InvalidInputError("node_type", `expected an integer, got ${nodeTypeOverride}`);
    nodeTypes = new Float64Array(table.rowCount).fill(nodeTypeOverride);
  } else if (findColumn(table, NODE_TYPE_COLUMN) >= 0) {
    const nodeTypeMatrix = columnsMatrix(table, [NODE_TYPE_COLUMN], "node type");
    assertFinite(table, [NODE_TYPE_COLUMN], nodeTypeMatrix);
    nodeTypes = nodeTypeMatrix.values;
  } else {
    nodeTypes = new Float64Array(table.rowCount);
  }
  return { rowCount: table.rowCount, timestamps: table.timestamps, features: featureMatrix, ratio, labels, nodeTypes };
}
