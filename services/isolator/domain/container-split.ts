// Splitting a container-level table into target and background containers (reference isolate_container).
import type { DataTable } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";
import { takeElements, takeRows } from "../../../wasm-core/src/index.js";

/**
 * The container name of a row id `container_id/pod_name/container_name/namespace` (reference
 * `id.split("/")[2]`); empty when the id has fewer parts.
 */
export function containerNameOf(rowId: string): string {
  return rowId.split("/")[2] ?? "";
}

/** The row ids of a container-level table; InvalidInputError for a node-level table. */
export function assertContainerRows(table: DataTable, field = "table"): readonly string[] {
  if (table.rowIds === undefined || table.rowIds.length !== table.rowCount || table.rowCount === 0) {
    throw new InvalidInputError(
      `${field}.row_ids`,
      table.rowCount === 0 ? "the table has no rows" : "the isolator needs a container-level table (one row id per row)",
    );
  }
  return table.rowIds;
}

/** Target and background rows of a container-level table. */
export interface ContainerSplit {
  readonly target: DataTable;
  /** Undefined when no row belongs to a background container. */
  readonly background: DataTable | undefined;
  /** Distinct background container names found in the table, sorted. */
  readonly backgroundContainerNames: readonly string[];
  /** Distinct target container ids. */
  readonly targetContainerCount: number;
}

/** Splits rows by their container name; `isBackground` decides per name. */
export function splitContainers(table: DataTable, isBackground: (containerName: string) => boolean): ContainerSplit {
  const rowIds = assertContainerRows(table);
  const targetRows: number[] = [];
  const backgroundRows: number[] = [];
  const backgroundNames = new Set<string>();
  const targetIds = new Set<string>();
  rowIds.forEach((id, row) => {
    const name = containerNameOf(id);
    if (isBackground(name)) {
      backgroundRows.push(row);
      backgroundNames.add(name);
    } else {
      targetRows.push(row);
      targetIds.add(id);
    }
  });
  if (targetRows.length === 0) {
    throw new InvalidInputError("table.row_ids", "every container is background: no target container is left to train on");
  }
  return {
    target: selectRows(table, Uint32Array.from(targetRows)),
    background: backgroundRows.length > 0 ? selectRows(table, Uint32Array.from(backgroundRows)) : undefined,
    backgroundContainerNames: [...backgroundNames].sort(),
    targetContainerCount: targetIds.size,
  };
}

function selectRows(table: DataTable, rows: Uint32Array): DataTable {
  const picked = takeRows({ rows: table.rowCount, cols: table.columnNames.length, values: table.values }, rows);
  return {
    columnNames: table.columnNames,
    rowCount: rows.length,
    values: picked.values,
    timestamps: takeElements(table.timestamps, rows),
    rowIds: Array.from(rows, (row) => table.rowIds![row]!),
  };
}
