// Hostile inputs for the RPC fuzz test: a seeded random source, hostile numbers and strings, structured
// requests built from a method's descriptor, and raw bytes (deep nesting, bad varints, truncation).
import { create, type DescField, type DescMessage, type DescMethod, ScalarType, toBinary } from "@bufbuild/protobuf";

// mulberry32: small, seedable, good enough to pick cases reproducibly.
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}
export type Random = ReturnType<typeof createRandom>;

export const HOSTILE_NUMBERS = [
  Number.NaN,
  Infinity,
  -Infinity,
  -1,
  0,
  1,
  1e-9,
  1e308,
  -1e308,
  2 ** 31 - 1,
  2 ** 32 - 1,
  2 ** 53,
];
export const HOSTILE_STRINGS = [
  "",
  "rapl-sysfs",
  "BPFOnly",
  "LinearRegressionTrainer",
  "../../../etc/passwd",
  "/etc/passwd",
  "a/../../b",
  "\u0000",
  "name with spaces",
  "mae:;features:",
  "😀".repeat(100),
  "\ud800",
  "%s%n{}[]",
];

export function hostileString(random: Random): string {
  switch (random.int(4)) {
    case 0:
      return "x".repeat(random.pick([255, 256, 257, 4097, 70_000, 300_000]));
    case 1:
      return Array.from({ length: random.int(40) }, () => String.fromCharCode(random.int(0x3000))).join("");
    default:
      return random.pick(HOSTILE_STRINGS);
  }
}

export function scalarValue(field: { scalar: ScalarType }, random: Random): unknown {
  switch (field.scalar) {
    case ScalarType.STRING:
      return hostileString(random);
    case ScalarType.BYTES: {
      const bytes = new Uint8Array(random.pick([0, 1, 7, 9, 64, 4096, 100_003]));
      for (let i = 0; i < Math.min(bytes.length, 4096); i++) bytes[i] = random.int(256);
      if (random.chance(0.5)) new Uint8Array(bytes.buffer, 0, bytes.length - (bytes.length % 8)).fill(0xff); // NaN doubles
      return bytes;
    }
    case ScalarType.BOOL:
      return random.chance(0.5);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return random.pick(HOSTILE_NUMBERS);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return random.pick([0n, -1n, 1n, 2n ** 62n, -(2n ** 63n)]);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return random.pick([0n, 1n, 2n ** 64n - 1n, 2n ** 40n]);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return random.pick([0, 1, 3, 1000, 2 ** 31, 2 ** 32 - 1]);
    default:
      return random.pick([0, 1, -1, 3, 999, 2 ** 31 - 1, -(2 ** 31)]);
  }
}

export function fieldValue(field: DescField, random: Random, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalarValue(field, random);
    case "enum":
      return random.pick([0, 1, 2, 3, 999, -1]);
    case "message":
      return hostileMessage(field.message, random, depth + 1);
    case "list": {
      const count = random.pick([0, 1, 2, 3, 17, 1025, 5000]);
      const item = () =>
        field.listKind === "message"
          ? hostileMessage(field.message, random, depth + 1)
          : field.listKind === "enum"
            ? random.pick([0, 1, 999])
            : scalarValue(field, random);
      // Long lists repeat one small value, so a request stays within a few megabytes.
      if (count > 17) {
        const small =
          field.listKind === "message"
            ? create(field.message)
            : field.listKind === "enum"
              ? 999
              : field.scalar === ScalarType.STRING
                ? random.pick(HOSTILE_STRINGS)
                : field.scalar === ScalarType.BYTES
                  ? new Uint8Array(3)
                  : scalarValue(field, random);
        return new Array(count).fill(small);
      }
      return Array.from({ length: count }, item);
    }
    default:
      return undefined;
  }
}

export function hostileMessage(desc: DescMessage, random: Random, depth = 0): Record<string, unknown> {
  const message = create(desc) as unknown as Record<string, unknown>;
  if (depth > 4) return message;
  for (const field of desc.fields) {
    if (!random.chance(0.6)) continue;
    const value = fieldValue(field, random, depth);
    if (value === undefined) continue;
    if (field.oneof !== undefined) message[field.oneof.localName] = { case: field.localName, value };
    else message[field.localName] = value;
  }
  return message;
}

// Length-delimited field 1 nested `depth` times: a deeply nested message (or a long string, by type).
export function deepNesting(depth: number): Uint8Array {
  let inner: Uint8Array = new Uint8Array([0x0a, 0x00]);
  for (let i = 0; i < depth; i++) inner = concat(new Uint8Array([0x0a, ...varint(inner.length)]), inner);
  return inner;
}

export function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function hostileBytes(method: DescMethod, random: Random): Uint8Array {
  const kind = random.int(10);
  if (kind === 0) return Uint8Array.from({ length: random.int(200) }, () => random.int(256));
  if (kind === 1) return deepNesting(random.pick([10, 100, 1000]));
  let encoded: Uint8Array;
  try {
    encoded = toBinary(method.input, hostileMessage(method.input, random) as never);
  } catch {
    return Uint8Array.from({ length: random.int(64) }, () => random.int(256));
  }
  // Deep trees of lists of messages can still multiply up: keep requests under the 16 MiB limit mostly.
  if (encoded.length > 24 * 1024 * 1024) return encoded.subarray(0, 1024);
  if (kind === 2) {
    // Invalid UTF-8 in a string field: appended, so it wins over the field's earlier value.
    const field = method.input.fields.find((f) => f.fieldKind === "scalar" && f.scalar === ScalarType.STRING);
    if (field !== undefined) return concat(encoded, new Uint8Array([(field.number << 3) | 2, 4, 0xff, 0xfe, 0xc3, 0x28]));
  }
  if (kind === 3 && encoded.length > 2) return encoded.subarray(0, random.int(encoded.length)); // truncated
  return encoded;
}
