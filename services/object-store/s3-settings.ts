// How every S3 client of the project is configured: one endpoint/region pair from config, credentials from
// the SDK's standard sources (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, or an instance role).
import type { ConfigKey } from "../kit/config/config-schema.js";

/** Endpoint and region of the S3 API. */
export interface S3Settings {
  /** Empty: AWS S3 itself. Otherwise the endpoint of an S3-compatible server (IBM COS, Ceph radosgw, ...). */
  endpoint: string;
  region: string;
  /** Per request: connecting and waiting for an answer, in ms; an unreachable store fails within it. */
  requestTimeoutMs: number;
}

const s3EndpointKey: ConfigKey<string> = {
  type: "string",
  default: "",
  env: "KEPLER_MODEL_S3_ENDPOINT",
  flag: "s3-endpoint",
  description:
    "Endpoint of an S3-compatible server (IBM Cloud Object Storage, Ceph radosgw, ...), e.g. https://s3.us-south.cloud-object-storage.appdomain.cloud; empty: AWS S3. Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or any source the AWS SDK reads).",
  check: (value) => (value === "" || /^https?:\/\/[^/]+/.test(value) ? undefined : `expected an http(s) URL, got "${value}"`),
};

const s3RegionKey: ConfigKey<string> = {
  type: "string",
  default: "us-east-1",
  env: "AWS_REGION",
  flag: "s3-region",
  description: "Region of the S3 bucket (AWS_REGION; any value for servers without regions).",
};

const s3RequestTimeoutKey: ConfigKey<number> = {
  type: "integer",
  default: 10_000,
  env: "KEPLER_MODEL_S3_TIMEOUT_MS",
  flag: "s3-timeout-ms",
  description: "Deadline of each S3 request in ms (connect and answer); an unreachable store fails within it.",
  check: (value) => (value > 0 ? undefined : `expected a positive number of milliseconds, got ${value}`),
};

/** The S3 keys, for a command's or service's config schema. */
export const s3ConfigSchema = {
  s3Endpoint: s3EndpointKey,
  s3Region: s3RegionKey,
  s3TimeoutMs: s3RequestTimeoutKey,
};

/** Settings from a config holding the s3ConfigSchema keys. */
export function s3SettingsOf(config: { s3Endpoint: string; s3Region: string; s3TimeoutMs: number }): S3Settings {
  return { endpoint: config.s3Endpoint, region: config.s3Region, requestTimeoutMs: config.s3TimeoutMs };
}
