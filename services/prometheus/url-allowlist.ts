// Which Prometheus servers a request may make the extractor call: without this check any client could
// point base_url at an internal address (cloud metadata, admin ports) and read or probe it through us.
import { InvalidInputError } from "../domain/errors.js";

/** The allowlist entry that allows every URL (unsafe: any client can make the server fetch any address). */
const ALLOW_ANY = "*";

/** The config flag listing the allowed URLs, named in every refusal. */
const ALLOWLIST_FLAG = "--prometheus-allowlist";

/** Allowed URL prefixes, normalised once; `any` when the list holds `*`. */
export interface PrometheusAllowlist {
  readonly any: boolean;
  readonly prefixes: readonly NormalisedUrl[];
}

interface NormalisedUrl {
  /** scheme://host:port, lowercase, with the default port written out. */
  readonly origin: string;
  /** Path without a trailing slash ("" for the root). */
  readonly path: string;
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/**
 * Parses the configured entries; returns a reason for the first one that is not an http(s) URL
 * prefix (config check), else undefined.
 */
export function checkAllowlistEntries(entries: readonly string[]): string | undefined {
  for (const entry of entries) {
    if (entry === ALLOW_ANY) continue;
    const reason = normalise(entry).reason;
    if (reason !== undefined) return `"${entry}" ${reason}`;
  }
  return undefined;
}

/** Builds the allowlist from config entries (already checked by checkAllowlistEntries). */
export function createAllowlist(entries: readonly string[]): PrometheusAllowlist {
  const prefixes: NormalisedUrl[] = [];
  for (const entry of entries) {
    if (entry === ALLOW_ANY) continue;
    const { url, reason } = normalise(entry);
    if (url === undefined) throw new InvalidInputError(ALLOWLIST_FLAG, `"${entry}" ${reason}`);
    prefixes.push(url);
  }
  return { any: entries.includes(ALLOW_ANY), prefixes };
}

/**
 * Throws INVALID_ARGUMENT naming `field` unless `candidate` equals an allowed prefix or extends it at
 * a path boundary, compared after URL normalisation (lowercase scheme and host, default ports,
 * resolved `.`/`..` segments). URLs with user info are refused outright: `http://a:9090@b/` fetches b.
 */
export function assertAllowedPrometheusUrl(candidate: string, allowlist: PrometheusAllowlist, field: string): void {
  const { url, reason } = normalise(candidate);
  if (url === undefined) throw new InvalidInputError(field, `"${candidate}" ${reason}`);
  if (allowlist.any) return;
  const allowed = allowlist.prefixes.some(
    (prefix) =>
      prefix.origin === url.origin && (prefix.path === "" || url.path === prefix.path || url.path.startsWith(`${prefix.path}/`)),
  );
  if (!allowed) {
    const listed = allowlist.prefixes.map((prefix) => prefix.origin + prefix.path).join(", ") || "none";
    throw new InvalidInputError(
      field,
      `"${url.origin}${url.path}" is not an allowed Prometheus URL (allowed: ${listed}); the server operator lists them with ${ALLOWLIST_FLAG} / KEPLER_MODEL_PROMETHEUS_ALLOWLIST`,
    );
  }
}

function normalise(text: string): { url: NormalisedUrl; reason?: undefined } | { url?: undefined; reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { reason: "is not a URL (expected http(s)://host[:port][/path])" };
  }
  const defaultPort = DEFAULT_PORTS[parsed.protocol];
  if (defaultPort === undefined) return { reason: "is not an http or https URL" };
  if (parsed.username !== "" || parsed.password !== "") return { reason: "must not carry user info (user@host)" };
  if (parsed.hostname === "") return { reason: "has no host" };
  // URL has already lowercased scheme and host, resolved dot segments and dropped a default port.
  const port = parsed.port === "" ? defaultPort : parsed.port;
  return {
    url: { origin: `${parsed.protocol}//${parsed.hostname}:${port}`, path: parsed.pathname.replace(/\/+$/, "") },
  };
}
