// Processor and vendor names normalised the way the reference's node_type_index.py does
// (rename + format_processor, format_vendor; spec §6.5), so discovered specs match the published indexes.

// rename(): drop trademarks, "CPU"/"Processor", bit-width blurbs, anything after "(" or "[", "@",
// commas and frequencies such as "2.50GHz".
function rename(name: string): string {
  let result = name
    .replaceAll("(R)", "")
    .replaceAll("(r)", "")
    .replaceAll("CPU", "")
    .replaceAll("Processor", "")
    .replaceAll("processor", "");
  result = result.replace(/\d+-Bit Multi-Core/g, "");
  result = (result.split("(")[0] ?? "").trim();
  result = (result.split("[")[0] ?? "").trim();
  result = result.replaceAll("@", "").replaceAll("®", "").replaceAll(",", "");
  // The reference's character class [G|M|g|m][H|h] also admits "|"; kept as written.
  return result.replace(/\d+(\.\d+)?\s?[G|M|g|m][H|h]z/g, "").trim();
}

/**
 * The reference's format_processor: e.g. "Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz" ->
 * "intel_xeon_e5_2686v4". Brand strings shorter than 2 characters (some machines report "-") give "".
 */
export function formatProcessor(brand: string): string {
  if (brand.length < 2) return "";
  const words = rename(brand)
    .replace(/\(.*\)/g, "")
    .split(/\s+/)
    .filter((word) => word !== "");
  return words.join("_").replaceAll("-", "_").toLowerCase().replaceAll("_v", "v");
}

/** The reference's format_vendor: the first word, lower-case, without "-", "," and "'". */
export function formatVendor(vendor: string): string {
  const first = vendor.trim().split(/\s+/)[0] ?? "";
  return first.replaceAll("-", "_").replaceAll(",", "").replaceAll("'", "").toLowerCase();
}
