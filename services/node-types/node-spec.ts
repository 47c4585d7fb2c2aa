// A machine's hardware description as the reference's NodeTypeSpec holds it (spec §6.5): five
// attributes, each possibly unknown (null). Numbers may be floats in the specpower index (`"cores": 4.0`).

/** The reference's NodeAttribute, in its order. */
export const NODE_ATTRIBUTES = ["processor", "cores", "chips", "memory", "frequency"] as const;
export type NodeAttribute = (typeof NODE_ATTRIBUTES)[number];

/** An attribute value as node_type_index.json stores it; null when unknown. */
export type NodeAttributeValue = string | number | null;

/** processor, cores, chips, memory (GiB), frequency (MHz); null = unknown (a wildcard when matching). */
export type NodeSpec = Record<NodeAttribute, NodeAttributeValue>;

/** A spec with every attribute unknown. */
export function emptyNodeSpec(): NodeSpec {
  return { processor: null, cores: null, chips: null, memory: null, frequency: null };
}

/**
 * The reference's attr_has_value: set and truthy, and for the numeric attributes > 0.
 * `""`, null, `"0"`, 0, `"-1"` and -1 have no value; `"1"`, 1 and `"some"` have one.
 */
export function attrHasValue(spec: NodeSpec, attribute: NodeAttribute): boolean {
  const value = spec[attribute];
  if (value === null || value === "" || value === 0) return false;
  if (attribute === "processor") return true;
  const numeric = Number(value);
  // Python's float("abc") raises; the reference only calls attr_has_value on numeric attributes with numbers.
  return Number.isFinite(numeric) && numeric > 0;
}

/** True when every attribute is known (the reference's complete_info checks for None only). */
export function isCompleteSpec(spec: NodeSpec): boolean {
  return NODE_ATTRIBUTES.every((attribute) => spec[attribute] !== null);
}

/** True when no attribute has a value (the reference's is_none). */
export function isEmptySpec(spec: NodeSpec): boolean {
  return NODE_ATTRIBUTES.every((attribute) => !attrHasValue(spec, attribute));
}

/** Number of unknown attributes (the reference's get_num_of_none). */
export function unknownAttributeCount(spec: NodeSpec): number {
  return NODE_ATTRIBUTES.filter((attribute) => spec[attribute] === null).length;
}

/**
 * A spec from loosely typed input (a request, a JSON file). Zero, empty and missing attributes become
 * null: the gRPC MachineSpec cannot tell "unknown" from 0, and the reference treats both as wildcards.
 */
export function nodeSpecFrom(input: Partial<Record<NodeAttribute, unknown>>): NodeSpec {
  const spec = emptyNodeSpec();
  for (const attribute of NODE_ATTRIBUTES) {
    const value = input[attribute];
    if (typeof value === "string" && value !== "") spec[attribute] = value;
    else if (typeof value === "number" && Number.isFinite(value) && value !== 0) spec[attribute] = value;
  }
  return spec;
}

/** The reference's cover(): every attribute `other` has a value for equals ours (numerically when both parse). */
export function specCovers(spec: NodeSpec, other: NodeSpec): boolean {
  return NODE_ATTRIBUTES.every((attribute) => {
    if (!attrHasValue(other, attribute)) return true;
    const mine = spec[attribute];
    const theirs = other[attribute];
    const a = toFloat(mine);
    const b = toFloat(theirs);
    if (a !== undefined && b !== undefined) return a === b;
    return mine === theirs;
  });
}

// Python's float(): numbers, and strings that parse as a whole; None raises (-> string comparison).
function toFloat(value: NodeAttributeValue): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const parsed = Number(value.trim());
  return Number.isNaN(parsed) ? undefined : parsed;
}
