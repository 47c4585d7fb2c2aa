// The Estimate call `npm start` prints and the README shows: what a Kepler v0.9 collector sends
// (kepler-collector §1.3), written as grpcurl's `-d` JSON with the proto field names reflection shows.

import type { SecurityConfig } from "../kit/security/security-config.js";

/** Kepler v0.9's static process feature list, in its order (`GetProcessFeatureNames()`). */
export const COLLECTOR_FEATURE_NAMES = [
  "cpu_cycles",
  "cpu_instructions",
  "cache_miss",
  "cpu_ref_cycles",
  "bpf_cpu_time_ms",
  "bpf_net_tx_irq",
  "bpf_net_rx_irq",
  "bpf_block_irq",
  "bpf_page_cache_hit",
] as const;

/**
 * One node row of per-second rates in that order: the busy second 1695361872 of the bundled coremark
 * recording (cycles, instructions, cache misses, IRQs; RAPL measured package 188.2 W, dram 49.8 W, ACPI
 * platform 364 W), with plausible values for the three metrics the 2023 recording lacks.
 */
export const EXAMPLE_FEATURE_VALUES = [
  50_208_792_167, 83_233_752_901, 15_171_585, 48_000_000_000, 20_000, 0, 203, 0.33, 1_500,
] as const;

/** The example EstimateRequest as JSON with proto field names (grpcurl `-d`, or any reflection client). */
export const EXAMPLE_ESTIMATE_REQUEST = {
  feature_names: [...COLLECTOR_FEATURE_NAMES],
  row_count: 1,
  value_list: [...EXAMPLE_FEATURE_VALUES],
  output_type: "OUTPUT_TYPE_ABS_POWER",
  energy_source: "intel_rapl",
};

/**
 * grpcurl's connection flags for servers with these settings: -plaintext, or the CA to trust and, for mTLS,
 * a client certificate (this process's own, which its CA signed).
 */
export function grpcurlConnectionFlags(security: SecurityConfig): string {
  if (security.tlsCert === "") return "-plaintext";
  const flags = security.tlsCa === "" ? [] : [`-cacert ${security.tlsCa}`];
  if (security.tlsClientCa !== "") flags.push(`-cert ${security.tlsCert}`, `-key ${security.tlsKey}`);
  if (security.tlsServerName !== "") flags.push(`-servername ${security.tlsServerName}`);
  return flags.join(" ");
}

/** The grpcurl command line for the example Estimate against an estimator at host:port. */
export function grpcurlEstimateCommand(estimatorAddress: string, connectionFlags = "-plaintext"): string {
  return `grpcurl ${connectionFlags} -d '${JSON.stringify(EXAMPLE_ESTIMATE_REQUEST)}' ${estimatorAddress} kepler.model.v1.EstimatorService/Estimate`;
}
