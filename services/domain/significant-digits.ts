// Numbers as pages show them: three significant digits, no false precision (12.3273 W -> 12.3 W).

/**
 * A number to three significant digits, whole numbers from 100 up (12.3273 -> "12.3", 0.012345 -> "0.0123",
 * 1234.5 -> "1235"); "-" when it is not a finite number.
 */
export function significant(value: unknown): string {
  if (typeof value !== "number" || !Number.isFinite(value)) return "-";
  if (value === 0) return "0";
  if (Math.abs(value) >= 100) return value.toFixed(0);
  return String(Number(value.toPrecision(3)));
}
