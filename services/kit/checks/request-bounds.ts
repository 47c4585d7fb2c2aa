import { InvalidInputError } from "../../domain/errors.js";
import type { FieldBound } from "./field-bounds.js";
import { methodsOf, type RequestShapes } from "./request-shapes.js";

/** Checks one decoded (ts-proto) message; throws InvalidInputError naming the field path and the bound. */
type MessageCheck = (message: unknown, path: string) => void;

/** Checks one decoded request of an RPC. */
export type RequestCheck = (request: unknown) => void;

// Messages in our protos do not nest deeper than a few levels; a recursive type stops here.
const MAX_DEPTH = 16;

/**
 * Bounds for every request message of the given services, compiled once from the request shapes into a
 * check per RPC path (e.g. "/kepler.model.v1.EstimatorService/Estimate"). A check touches only
 * string, list and message fields, reads lengths, and stops at the first violation, so it is linear in
 * the number of list entries at worst and runs before any work is done on the request.
 */
export function compileRequestBounds(shapes: RequestShapes, serviceNames: readonly string[]): Map<string, RequestCheck> {
  const checks = new Map<string, RequestCheck>();
  for (const [path, type] of methodsOf(shapes, serviceNames)) {
    const check = compileMessage(shapes, type, 0);
    checks.set(path, (message) => check(message, ""));
  }
  return checks;
}

function compileMessage(shapes: RequestShapes, type: string, depth: number): MessageCheck {
  if (depth >= MAX_DEPTH) return () => undefined;
  const fieldChecks: MessageCheck[] = [];
  for (const field of shapes.messages[type] ?? []) {
    const bound = field.bound;
    const nested = field.message !== undefined ? compileMessage(shapes, field.message, depth + 1) : undefined;
    if (bound === undefined && nested === undefined) continue;
    const read = field.oneof === undefined ? readField(field.localName) : readOneofMember(field.oneof, field.localName);
    const check = compileValue(field.name, bound, nested, field.kind === "list" || field.kind === "map");
    fieldChecks.push((message, path) => {
      const value = read(message);
      if (value !== undefined && value !== null) check(value, path);
    });
  }
  if (fieldChecks.length === 0) return () => undefined;
  return (message, path) => {
    if (typeof message !== "object" || message === null) return;
    for (const check of fieldChecks) check(message, path);
  };
}

// Paths are built only for an error: the checks of a valid request allocate nothing.
function compileValue(
  name: string,
  bound: FieldBound | undefined,
  nested: MessageCheck | undefined,
  isList: boolean,
): MessageCheck {
  const at = (path: string) => (path === "" ? name : `${path}.${name}`);
  return (value, path) => {
    if (!isList) {
      assertChars(value, bound, path, name);
      nested?.(value, at(path));
      return;
    }
    const entries = Array.isArray(value) ? value : Object.values(value as object);
    if (bound?.maxEntries !== undefined && entries.length > bound.maxEntries)
      throw new InvalidInputError(at(path), `at most ${bound.maxEntries} entries allowed, got ${entries.length}`);
    if (bound?.maxChars === undefined && nested === undefined) return;
    for (let i = 0; i < entries.length; i++) {
      assertChars(entries[i], bound, path, name, i);
      nested?.(entries[i], `${at(path)}[${i}]`);
    }
  };
}

function assertChars(value: unknown, bound: FieldBound | undefined, path: string, name: string, index?: number): void {
  if (bound?.maxChars !== undefined && typeof value === "string" && value.length > bound.maxChars) {
    const field = `${path === "" ? name : `${path}.${name}`}${index === undefined ? "" : `[${index}]`}`;
    throw new InvalidInputError(field, `at most ${bound.maxChars} characters allowed, got ${value.length}`);
  }
}

function readField(localName: string): (message: unknown) => unknown {
  return (message) => (message as Record<string, unknown>)[localName];
}

// ts-proto (oneof=unions-value) holds a oneof as { $case: member, value }.
function readOneofMember(oneofName: string, memberName: string): (message: unknown) => unknown {
  return (message) => {
    const union = (message as Record<string, { $case?: string; value?: unknown } | undefined>)[oneofName];
    return union?.$case === memberName ? union.value : undefined;
  };
}
