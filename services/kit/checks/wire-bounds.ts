import { InvalidInputError } from "../../domain/errors.js";
import { methodsOf, type RequestShapes } from "./request-shapes.js";

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

// Thrown to end a scan: at the first bound broken (its violation is kept on the cursor), or at bytes
// that are not a valid encoding (left to the decoder, which names the message type).
const STOP_SCAN = Symbol("stop scan");

/**
 * Entry-count bounds checked on the encoded request, before it is decoded: decoding 100,000 strings
 * alone costs tens of milliseconds, so an over-long list is refused without building it. Only counts
 * are checked here, by a skim that allocates nothing (a small hand-written reader, fast even before
 * the JIT warms up); string lengths are checked on the decoded request by request-bounds.ts, and both
 * use the same messages.
 */
export function compileWireBounds(shapes: RequestShapes, serviceNames: readonly string[]): Map<string, WireCheck> {
  const checks = new Map<string, WireCheck>();
  for (const [path, type] of methodsOf(shapes, serviceNames)) {
    const plan = planMessage(shapes, type, 0);
    if (plan === undefined) continue;
    checks.set(path, (bytes) => {
      const cursor = new WireCursor(bytes);
      try {
        scan(cursor, bytes.byteLength, plan, "");
        return undefined;
      } catch (error) {
        if (error !== STOP_SCAN) throw error;
        return cursor.violation;
      }
    });
  }
  return checks;
}

function planMessage(shapes: RequestShapes, type: string, depth: number): MessagePlan | undefined {
  if (depth >= MAX_DEPTH) return undefined;
  const plan: MessagePlan = new Map();
  for (const field of shapes.messages[type] ?? []) {
    const isList = field.kind === "list" || field.kind === "map";
    const maxEntries = isList ? field.bound?.maxEntries : undefined;
    const isMessage = field.kind === "message" || (field.kind === "list" && field.listKind === "message");
    const nested = isMessage && field.message !== undefined ? planMessage(shapes, field.message, depth + 1) : undefined;
    if (maxEntries === undefined && nested === undefined) continue;
    plan.set(field.number, { name: field.name, maxEntries, nested, isList, packedEntryBytes: field.packedEntryBytes });
  }
  return plan.size > 0 ? plan : undefined;
}

// A position in the encoded request, moved forward by each read; one per check, never shared.
class WireCursor {
  pos = 0;
  /** The first bound broken, once found. */
  violation: InvalidInputError | undefined = undefined;
  constructor(readonly bytes: Uint8Array) {}

  // A varint's value (up to 2^53, enough for tags and lengths).
  varint(end: number): number {
    let value = 0;
    let scale = 1;
    for (let i = this.pos; i < end && i < this.pos + 8; i++) {
      const byte = this.bytes[i] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        this.pos = i + 1;
        return value;
      }
      scale *= 128;
    }
    throw STOP_SCAN;
  }

  // Moves past one value of `wireType` (groups are not used by our protos).
  skip(wireType: number, end: number): void {
    if (wireType === VARINT) this.varint(Math.min(end, this.pos + 10));
    else if (wireType === I64) this.pos += 8;
    else if (wireType === I32) this.pos += 4;
    else if (wireType === LEN) {
      const length = this.varint(end);
      this.pos += length;
    } else throw STOP_SCAN;
    if (this.pos > end) throw STOP_SCAN;
  }
}

function scan(cursor: WireCursor, end: number, plan: MessagePlan, path: string): void {
  const counts = new Map<number, number>();
  while (cursor.pos < end) {
    const tag = cursor.varint(end);
    const fieldNo = Math.floor(tag / 8);
    const wireType = tag % 8;
    const field = plan.get(fieldNo);
    if (field === undefined || wireType !== LEN) {
      cursor.skip(wireType, end);
      if (field !== undefined) bumpCount(cursor, end, counts, fieldNo, field, 1, path);
      continue;
    }
    const length = cursor.varint(end);
    const contentStart = cursor.pos;
    const contentEnd = contentStart + length;
    if (contentEnd > end) throw STOP_SCAN;
    const before = counts.get(fieldNo) ?? 0;
    let added = 1;
    if (field.packedEntryBytes !== undefined) added = packedCount(cursor.bytes, contentStart, contentEnd, field.packedEntryBytes);
    else if (field.nested !== undefined) {
      const fieldPath = path === "" ? field.name : `${path}.${field.name}`;
      scan(cursor, contentEnd, field.nested, field.isList ? `${fieldPath}[${before}]` : fieldPath);
    }
    cursor.pos = contentEnd;
    bumpCount(cursor, end, counts, fieldNo, field, added, path);
  }
}

function bumpCount(
  cursor: WireCursor,
  end: number,
  counts: Map<number, number>,
  fieldNo: number,
  field: FieldPlan,
  added: number,
  path: string,
): void {
  const count = (counts.get(fieldNo) ?? 0) + added;
  counts.set(fieldNo, count);
  if (field.maxEntries === undefined || count <= field.maxEntries) return;
  const total = count + countRest(cursor, end, fieldNo, field);
  cursor.violation = new InvalidInputError(
    path === "" ? field.name : `${path}.${field.name}`,
    `at most ${field.maxEntries} entries allowed, got ${total}`,
  );
  throw STOP_SCAN;
}

// Entries of `fieldNo` from the cursor to `end` (so the error says how many were sent).
function countRest(cursor: WireCursor, end: number, fieldNo: number, field: FieldPlan): number {
  let count = 0;
  while (cursor.pos < end) {
    const tag = cursor.varint(end);
    if (Math.floor(tag / 8) === fieldNo && tag % 8 === LEN && field.packedEntryBytes !== undefined) {
      const length = cursor.varint(end);
      count += packedCount(cursor.bytes, cursor.pos, Math.min(end, cursor.pos + length), field.packedEntryBytes);
      cursor.pos += length;
      continue;
    }
    cursor.skip(tag % 8, end);
    if (Math.floor(tag / 8) === fieldNo) count++;
  }
  return count;
}

function packedCount(bytes: Uint8Array, start: number, end: number, entryBytes: number): number {
  if (entryBytes > 0) return Math.floor((end - start) / entryBytes);
  let count = 0;
  for (let i = start; i < end; i++) if (((bytes[i] as number) & 0x80) === 0) count++;
  return count;
}
