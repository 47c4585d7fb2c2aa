// Decoding of a Prometheus values list, `[[1695361425, "2151953558788"], [1695361428.5, "0.25"], ...]`,
// straight from the UTF-8 JSON bytes of a saved query response into float64 timestamps and values.
//
// Numbers are decoded here in the plain form: `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 15 significant
// digits and 22 fraction digits. Such a number is exact as one correctly rounded division of its integer
// mantissa (< 2^53) by an exact power of ten (Clinger's fast path), the same operation the TypeScript
// scanner's fast path performs, so both give the same bits. A value string in any other form ("NaN",
// "+Inf", 17 digits, an exponent) is left to the caller: its sample index and byte range are listed and its
// value is NaN until the caller decodes it. Anything else (other timestamps, escapes, malformed input)
// returns SAMPLES_UNSUPPORTED and the caller reads the whole list its own way, which also words the errors.

/** The list is not in the plain form: read it another way. */
export const SAMPLES_UNSUPPORTED: i32 = -1;
/** More samples than `capacity`: call again with room for more. */
export const SAMPLES_NEED_CAPACITY: i32 = -2;
/** The bytes end inside the list: call again with more of them. */
export const SAMPLES_TRUNCATED: i32 = -3;

const POWERS_OF_TEN: StaticArray<f64> = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

// Cursor of the number reader (AssemblyScript functions return one value).
let cursor: i32 = 0;

function skipWhitespace(bytes: usize, length: i32, at: i32): i32 {
  while (at < length) {
    const c = load<u8>(bytes + <usize>at);
    if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) break;
    at++;
  }
  return at;
}

// A plain number at `at`; leaves `cursor` after it. NaN (never a decoded value) when not plain.
function plainNumber(bytes: usize, length: i32, at: i32): f64 {
  let i = at;
  let negative = false;
  if (i < length && load<u8>(bytes + <usize>i) == 0x2d) {
    negative = true;
    i++;
  }
  const first = i;
  // An integer accumulator (15 digits < 2^53 convert to f64 exactly), far cheaper per digit than f64 math;
  // a longer mantissa, which may wrap, is rejected below.
  let mantissa: u64 = 0;
  let digits = 0;
  // The digits before and after the decimal point, in one pass; `point` is where the point is (-1: none).
  let point = -1;
  while (i < length) {
    const c = <i32>load<u8>(bytes + <usize>i);
    if (c == 0x2e && point < 0) {
      point = i++;
      continue;
    }
    if (c < 0x30 || c > 0x39) break;
    if (digits > 0 || c != 0x30) digits++;
    mantissa = mantissa * 10 + <u64>(c - 0x30);
    i++;
  }
  const integerDigits = (point < 0 ? i : point) - first;
  const fraction = point < 0 ? 0 : i - point - 1;
  // No integer digits, a leading zero followed by more digits, or a point without digits after it (not JSON).
  if (integerDigits == 0 || (integerDigits > 1 && load<u8>(bytes + <usize>first) == 0x30)) return NaN;
  if (point >= 0 && fraction == 0) return NaN;
  if (i < length) {
    const c = load<u8>(bytes + <usize>i);
    if (c == 0x65 || c == 0x45) return NaN;
  }
  if (digits > 15 || fraction > 22) return NaN;
  cursor = i;
  const exact = <f64>mantissa;
  const value = fraction == 0 ? exact : exact / unchecked(POWERS_OF_TEN[fraction]);
  return negative ? -value : value;
}

/**
 * Decodes the values list whose `[` is at byte `start` of `bytes` (`length` bytes) into up to `capacity`
 * timestamps and values, listing the value strings left to the caller at `exceptionsPtr` (i32 triples:
 * sample index, first byte, end byte; room for `capacity`). Returns the sample count and stores, as i32s,
 * the offset just past the list's `]` at `infoPtr` and the number of value strings left at `infoPtr + 4`;
 * SAMPLES_UNSUPPORTED, SAMPLES_NEED_CAPACITY or SAMPLES_TRUNCATED otherwise.
 */
export function decodeSamples(
  bytes: usize,
  length: i32,
  start: i32,
  timestampsPtr: usize,
  valuesPtr: usize,
  exceptionsPtr: usize,
  capacity: i32,
  infoPtr: usize,
): i32 {
  let at = start;
  if (at >= length) return SAMPLES_TRUNCATED;
  if (load<u8>(bytes + <usize>at) != 0x5b) return SAMPLES_UNSUPPORTED;
  at = skipWhitespace(bytes, length, at + 1);
  if (at >= length) return SAMPLES_TRUNCATED;
  if (load<u8>(bytes + <usize>at) == 0x5d) {
    store<i32>(infoPtr, at + 1);
    store<i32>(infoPtr + 4, 0);
    return 0;
  }
  let n = 0;
  let exceptions = 0;
  while (n < capacity) {
    if (at >= length) return SAMPLES_TRUNCATED;
    if (load<u8>(bytes + <usize>at) != 0x5b) return SAMPLES_UNSUPPORTED;
    at = skipWhitespace(bytes, length, at + 1);
    if (at >= length) return SAMPLES_TRUNCATED;
    const timestamp = plainNumber(bytes, length, at);
    if (isNaN(timestamp)) return SAMPLES_UNSUPPORTED;
    at = skipWhitespace(bytes, length, cursor);
    if (at >= length) return SAMPLES_TRUNCATED;
    if (load<u8>(bytes + <usize>at) != 0x2c) return SAMPLES_UNSUPPORTED;
    at = skipWhitespace(bytes, length, at + 1);
    if (at + 1 >= length) return SAMPLES_TRUNCATED;
    if (load<u8>(bytes + <usize>at) != 0x22) return SAMPLES_UNSUPPORTED;
    const valueStart = at + 1;
    let value = plainNumber(bytes, length, valueStart);
    at = cursor;
    if (isNaN(value) || at >= length || load<u8>(bytes + <usize>at) != 0x22) {
      // Another string: the caller decodes it (or words its error); escapes take the caller's whole path.
      at = valueStart;
      while (at < length) {
        const c = load<u8>(bytes + <usize>at);
        if (c == 0x22) break;
        if (c == 0x5c) return SAMPLES_UNSUPPORTED;
        at++;
      }
      if (at >= length) return SAMPLES_TRUNCATED;
      const slot = exceptionsPtr + <usize>exceptions * 12;
      store<i32>(slot, n);
      store<i32>(slot + 4, valueStart);
      store<i32>(slot + 8, at);
      exceptions++;
      value = NaN;
    }
    at = skipWhitespace(bytes, length, at + 1);
    if (at >= length) return SAMPLES_TRUNCATED;
    if (load<u8>(bytes + <usize>at) != 0x5d) return SAMPLES_UNSUPPORTED;
    store<f64>(timestampsPtr + ((<usize>n) << 3), timestamp);
    store<f64>(valuesPtr + ((<usize>n) << 3), value);
    n++;
    at = skipWhitespace(bytes, length, at + 1);
    if (at >= length) return SAMPLES_TRUNCATED;
    const c = load<u8>(bytes + <usize>at);
    if (c == 0x5d) {
      store<i32>(infoPtr, at + 1);
      store<i32>(infoPtr + 4, exceptions);
      return n;
    }
    if (c != 0x2c) return SAMPLES_UNSUPPORTED;
    at = skipWhitespace(bytes, length, at + 1);
  }
  return SAMPLES_NEED_CAPACITY;
}
