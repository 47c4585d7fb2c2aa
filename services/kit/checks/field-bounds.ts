import { type DescField, ScalarType } from "@bufbuild/protobuf";
import { DEFAULT_MESSAGE_LIMITS } from "../transport/message-limits.js";

/** Names, identifiers, enum-like strings and each entry of a string list. */
const NAME_MAX_CHARS = 256;
/** JSON documents (metadata, weights): the message limit keeps them far below this anyway. */
const TEXT_MAX_CHARS = 1024 * 1024;
/** Short free text: filters, URLs, page tokens. */
const SHORT_TEXT_MAX_CHARS = 4096;
/** Lists of names (features, trainers, hints, metrics) and lists of small messages. */
const LIST_MAX_ENTRIES = 1024;
/** Lists of numbers or per-row values: as many float64 cells as fit in the largest message. */
const CELL_LIST_MAX_ENTRIES = DEFAULT_MESSAGE_LIMITS.maxReceiveBytes / 8;

/**
 * A bound on one request field: a string's length in UTF-16 code units, a list's entry count, and for
 * lists of strings the length of each entry.
 */
export interface FieldBound {
  maxChars?: number;
  maxEntries?: number;
}

// Fields whose bound differs from the default for their kind, by full proto name. Every bound is
// also stated in the field's .proto comment (test/reliability/request-bounds.test.ts checks that).
const OVERRIDES: Readonly<Record<string, FieldBound>> = {
  "kepler.model.v1.PublishModelHeader.weight_json": { maxChars: TEXT_MAX_CHARS },
  "kepler.model.v1.PutPipelineMetadataRequest.metadata_json": { maxChars: TEXT_MAX_CHARS },
  "kepler.model.v1.EstimateRequest.filter": { maxChars: SHORT_TEXT_MAX_CHARS },
  "kepler.model.v1.SelectModelRequest.filter": { maxChars: SHORT_TEXT_MAX_CHARS },
  "kepler.model.v1.ListBestModelsRequest.filter": { maxChars: SHORT_TEXT_MAX_CHARS },
  "kepler.model.v1.ListModelsRequest.filter": { maxChars: SHORT_TEXT_MAX_CHARS },
  "kepler.model.v1.PrometheusWindow.base_url": { maxChars: SHORT_TEXT_MAX_CHARS },
  "kepler.model.v1.ImportPipelineHeader.server_path": { maxChars: SHORT_TEXT_MAX_CHARS },
  "kepler.model.v1.TableChunk.row_ids": { maxEntries: CELL_LIST_MAX_ENTRIES, maxChars: NAME_MAX_CHARS },
  "kepler.model.v1.TableChunk.row_id_dictionary": { maxEntries: CELL_LIST_MAX_ENTRIES, maxChars: NAME_MAX_CHARS },
};

/** The bound for a field by its kind (see the constants above) and the overrides; undefined: unbounded (bytes, numbers). */
export function boundOf(field: DescField): FieldBound | undefined {
  const override = OVERRIDES[`${field.parent.typeName}.${field.name}`];
  switch (field.fieldKind) {
    case "scalar":
      return field.scalar === ScalarType.STRING ? { maxChars: NAME_MAX_CHARS, ...override } : undefined;
    case "list":
      if (field.listKind === "scalar" && field.scalar === ScalarType.STRING)
        return { maxEntries: LIST_MAX_ENTRIES, maxChars: NAME_MAX_CHARS, ...override };
      if (field.listKind === "message") return { maxEntries: LIST_MAX_ENTRIES, ...override };
      return { maxEntries: CELL_LIST_MAX_ENTRIES, ...override };
    case "map":
      return { maxEntries: LIST_MAX_ENTRIES, ...override };
    default:
      return undefined;
  }
}

/** The bound as the sentence the .proto comment carries, e.g. "Bound: at most 1024 entries of at most 256 characters." */
export function describeBound(bound: FieldBound): string {
  const chars = bound.maxChars === undefined ? "" : `at most ${bound.maxChars} characters`;
  if (bound.maxEntries === undefined) return `Bound: ${chars}.`;
  return `Bound: at most ${bound.maxEntries} entries${chars === "" ? "" : ` of ${chars}`}.`;
}
