/** Most items an error message lists; the rest are counted, so a message never grows with client input. */
const MAX_LISTED_ITEMS = 20;

/** `a, b, c`, or `a, b, ... and 98 more` past `max` items. */
export function joinCapped(items: readonly string[], max = MAX_LISTED_ITEMS): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")}, ... and ${items.length - max} more`;
}

/** `[a, b, c]`, or `[a, b, ... and 98 more]` past `max` items. */
export function listText(items: readonly string[], max = MAX_LISTED_ITEMS): string {
  return `[${joinCapped(items, max)}]`;
}
