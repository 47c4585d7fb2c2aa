// Python's text forms of values, for text the reference writes with pandas (CSV) or json.dumps so that
// ours reads the same: the extractor's CSV tables, the registry's per-pipeline model table and the
// estimator socket's responses.

/** Python's repr() of a float: shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16. */
export function formatPythonFloat(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Number.POSITIVE_INFINITY) return "inf";
  if (value === Number.NEGATIVE_INFINITY) return "-inf";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  // toExponential() without digits gives the shortest digits that round-trip, like Python's repr.
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const magnitude = Math.abs(exponent);
    return `${sign}${fraction}e${exponent < 0 ? "-" : "+"}${magnitude < 10 ? "0" : ""}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === "" ? "0" : fraction}`;
}

/** Python's repr() of a list of strings, as pandas writes a list cell: `['a', 'b']`. */
export function formatPythonStringList(values: readonly string[]): string {
  return `[${values.map((value) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`).join(", ")}]`;
}

/** Python's json.dumps() of a string (ensure_ascii): anything outside printable ASCII becomes `\uXXXX`. */
export function formatPythonJsonString(value: string): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
