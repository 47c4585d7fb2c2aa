// Host context from the host's Kepler 0.10+ through Prometheus (instant queries):
// `kepler_node_cpu_usage_ratio{<selector>}` and `sum by (zone) (kepler_node_cpu_active_watts{<selector>})`,
// with the host's logical CPU count given by the operator. Unavailable (UnavailableError) when Prometheus
// or either series is missing: the tick fails and the exporter keeps its last watts.
import { UnavailableError } from "../../domain/errors.js";
import { readCappedJson } from "../../domain/capped-response-body.js";
import { HOST_ZONES, type HostContextReading } from "./host-context.js";

export interface PrometheusHostContextOptions {
  prometheusUrl: string;
  /** PromQL label matchers naming the host in its Kepler series, e.g. `node_name="host-1"`. */
  selector: string;
  hostCpus: number;
  timeoutMs?: number;
}

/** An instant query of one host's few series answers a few KiB; more is a misdirected URL or a hostile server. */
export const HOST_QUERY_MAX_BYTES = 4 * 1024 * 1024;

type VectorAnswer = {
  status: string;
  error?: string;
  data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
};

/** Reads the host's usage ratio and active watts per zone (see the file comment). */
export function prometheusHostContext(options: PrometheusHostContextOptions): { read(): Promise<HostContextReading> } {
  const subject = `host context ${options.prometheusUrl} {${options.selector}}`;
  const query = async (promql: string) => {
    const url = `${options.prometheusUrl.replace(/\/$/, "")}/api/v1/query?query=${encodeURIComponent(promql)}`;
    let answer: VectorAnswer;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
      answer = (await readCappedJson(response, url, {
        limitBytes: HOST_QUERY_MAX_BYTES,
        limitName: "the host query limit",
      })) as VectorAnswer;
    } catch (error) {
      throw new UnavailableError(subject, (error as Error).message, { cause: error });
    }
    if (answer.status !== "success" || answer.data === undefined)
      throw new UnavailableError(subject, answer.error ?? answer.status);
    return answer.data.result;
  };
  return {
    async read() {
      const [usage, active] = await Promise.all([
        query(`kepler_node_cpu_usage_ratio{${options.selector}}`),
        query(`sum by (zone) (kepler_node_cpu_active_watts{${options.selector}})`),
      ]);
      const usageRatio = Number(usage[0]?.value[1]);
      if (!Number.isFinite(usageRatio)) throw new UnavailableError(subject, "no kepler_node_cpu_usage_ratio");
      const activeWatts = Object.fromEntries(
        HOST_ZONES.map((zone) => [zone, Number(active.find((s) => s.metric.zone === zone)?.value[1] ?? 0)]),
      ) as HostContextReading["activeWatts"];
      return { hostCpus: options.hostCpus, usageRatio, activeWatts };
    },
  };
}
