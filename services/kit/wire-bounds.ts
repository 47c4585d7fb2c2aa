import { type DescField, type DescMessage, type FileRegistry, ScalarType } from "@bufbuild/protobuf";
import { InvalidInputError } from "../domain/errors.js";
import { boundOf } from "./field-bounds.js";

/** Checks a request's encoded bytes; returns the first violation, or undefined. */
export type WireCheck = (bytes: Uint8Array) => InvalidInputError | undefined;

interface FieldPlan {
  name: string;
  maxEntries?: number;
  /** For packed scalars: bytes per entry, or 0 for varints (counted by their last bytes). */
  packedEntryBytes?: number;
  nested?: MessagePlan;
  isList: boolean;
}
type MessagePlan = Map<number, FieldPlan>;

const MAX_DEPTH = 16;
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

/** Bytes that do not parse; the decoder reports them with its own message. */
class WireFormatError extends Error {}

/**
 * Entry-count bounds checked on the encoded request, before it is decoded: decoding 100,000 strings
 * alone costs tens of milliseconds, so an over-long list is refused without building it. Only counts
 * are checked here, by a skim that allocates nothing (a small hand-written reader, fast even before
 * the JIT warms up); string lengths are checked on the decoded request by request-bounds.ts, and both
 * use the same messages.
 */
export function compileWireBounds(registry: FileRegistry, serviceNames: readonly string[]): Map<string, WireCheck> {
  const checks = new Map<string, WireCheck>();
  for (const name of serviceNames) {
    const service = registry.getService(name);
    if (service === undefined) continue;
    for (const method of service.methods) {
      const plan = planMessage(method.input, 0);
      if (plan === undefined) continue;
      checks.set(`/${service.typeName}/${method.name}`, (bytes) => {
        try {
          scan(bytes, 0, bytes.byteLength, plan, "");
          return undefined;
        } catch (error) {
          if (error instanceof InvalidInputError) return error;
          if (error instanceof WireFormatError) return undefined;
          throw error;
        }
      });
    }
  }
  return checks;
}

function planMessage(desc: DescMessage, depth: number): MessagePlan | undefined {
  if (depth >= MAX_DEPTH) return undefined;
  const plan: MessagePlan = new Map();
  for (const field of desc.fields) {
    const isList = field.fieldKind === "list" || field.fieldKind === "map";
    const maxEntries = isList ? boundOf(field)?.maxEntries : undefined;
    const isMessage = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message");
    const nested = isMessage && field.message !== undefined ? planMessage(field.message, depth + 1) : undefined;
    if (maxEntries === undefined && nested === undefined) continue;
    plan.set(field.number, { name: field.name, maxEntries, nested, isList, packedEntryBytes: packedEntryBytes(field) });
  }
  return plan.size > 0 ? plan : undefined;
}

function packedEntryBytes(field: DescField): number | undefined {
  if (field.fieldKind !== "list" || field.listKind !== "scalar") return undefined;
  switch (field.scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 8;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return 4;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return undefined;
    default:
      return 0;
  }
}

// A varint's value (up to 2^53, enough for tags and lengths) and the position after it.
let varintEnd = 0;
function readVarint(bytes: Uint8Array, pos: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = pos; i < end && i < pos + 8; i++) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varintEnd = i + 1;
      return value;
    }
    scale *= 128;
  }
  throw new WireFormatError("bad varint");
}

// The position after a value of `wireType` starting at `pos` (groups are not used by our protos).
function skipValue(bytes: Uint8Array, pos: number, end: number, wireType: number): number {
  let next: number;
  if (wireType === VARINT) {
    readVarint(bytes, pos, Math.min(end, pos + 10));
    next = varintEnd;
  } else if (wireType === I64) next = pos + 8;
  else if (wireType === I32) next = pos + 4;
  else if (wireType === LEN) next = readVarint(bytes, pos, end) + varintEnd;
  else throw new WireFormatError("unsupported wire type");
  if (next > end) throw new WireFormatError("truncated");
  return next;
}

function scan(bytes: Uint8Array, start: number, end: number, plan: MessagePlan, path: string): void {
  const counts = new Map<number, number>();
  let pos = start;
  while (pos < end) {
    const tag = readVarint(bytes, pos, end);
    pos = varintEnd;
    const fieldNo = Math.floor(tag / 8);
    const wireType = tag % 8;
    const field = plan.get(fieldNo);
    const valueStart = pos;
    pos = skipValue(bytes, pos, end, wireType);
    if (field === undefined) continue;
    const fieldPath = path === "" ? field.name : `${path}.${field.name}`;
    const before = counts.get(fieldNo) ?? 0;
    let added = 1;
    if (wireType === LEN) {
      const length = readVarint(bytes, valueStart, end);
      const contentStart = varintEnd;
      if (field.packedEntryBytes !== undefined)
        added = packedCount(bytes, contentStart, contentStart + length, field.packedEntryBytes);
      else if (field.nested !== undefined)
        scan(bytes, contentStart, contentStart + length, field.nested, field.isList ? `${fieldPath}[${before}]` : fieldPath);
    }
    counts.set(fieldNo, before + added);
    if (field.maxEntries !== undefined && before + added > field.maxEntries) {
      const total = before + added + countRest(bytes, pos, end, fieldNo, field);
      throw new InvalidInputError(fieldPath, `at most ${field.maxEntries} entries allowed, got ${total}`);
    }
  }
}

// Entries of `fieldNo` after `pos` (so the error says how many were sent).
function countRest(bytes: Uint8Array, start: number, end: number, fieldNo: number, field: FieldPlan): number {
  let count = 0;
  let pos = start;
  while (pos < end) {
    const tag = readVarint(bytes, pos, end);
    pos = varintEnd;
    const valueStart = pos;
    pos = skipValue(bytes, pos, end, tag % 8);
    if (Math.floor(tag / 8) !== fieldNo) continue;
    if (tag % 8 === LEN && field.packedEntryBytes !== undefined) {
      const length = readVarint(bytes, valueStart, end);
      count += packedCount(bytes, varintEnd, varintEnd + length, field.packedEntryBytes);
    } else count++;
  }
  return count;
}

function packedCount(bytes: Uint8Array, start: number, end: number, entryBytes: number): number {
  if (entryBytes > 0) return Math.floor((end - start) / entryBytes);
  let count = 0;
  for (let i = start; i < end; i++) if (((bytes[i] as number) & 0x80) === 0) count++;
  return count;
}
