// The host's own number, where the operator runs both sides (KubeVirt, OpenStack, libvirt): the VM's
// energy as the host's Kepler 0.10+ measures it, `kepler_vm_cpu_joules_total{<selector>}`, read from
// Prometheus. Each read asks for the raw samples of the last `windowSeconds` and divides the energy between
// the last two samples by their time apart: the host's average watts over its own last interval, exact
// (no rate() extrapolation). A failed query, fewer than two samples, a counter that fell (a Kepler restart)
// or a last sample older than `maxAgeSeconds` is "unavailable": the exporter falls back to its model.
import { UnavailableError } from "../../domain/errors.js";
import { readCappedJson } from "../../domain/capped-response-body.js";
import { HOST_QUERY_MAX_BYTES } from "./host-context-source.js";

/** The host's watts per zone (the caller's zone order) and when its last sample was taken. */
export interface HostPower {
  watts: Float64Array;
  sampleSeconds: number;
}

export interface HostPowerSource {
  /** Where the number comes from (for logs). */
  readonly description: string;
  /** The host's current watts; throws UnavailableError when it cannot give them. */
  read(): Promise<HostPower>;
}

export interface PrometheusHostPowerOptions {
  prometheusUrl: string;
  /** PromQL label matchers naming the VM, e.g. `vm_id="instance-0000002a"`. */
  selector: string;
  zones: readonly string[];
  timeoutMs?: number;
  /** How far back samples are asked for (default 60 s: two samples of a 30 s scrape). */
  windowSeconds?: number;
  /** A last sample older than this is stale (default 3 x the window / 2). */
  maxAgeSeconds?: number;
  now?: () => number;
}

interface MatrixAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> };
}

/** Reads the VM's host-measured watts from Prometheus (see the file comment). */
export function prometheusHostPower(options: PrometheusHostPowerOptions): HostPowerSource {
  const window = options.windowSeconds ?? 60;
  const maxAge = options.maxAgeSeconds ?? (3 * window) / 2;
  const now = options.now ?? (() => Date.now() / 1000);
  const query = `kepler_vm_cpu_joules_total{${options.selector}}[${window}s]`;
  const subject = `host power ${options.prometheusUrl} ${query}`;
  return {
    description: subject,
    async read() {
      const url = `${options.prometheusUrl.replace(/\/$/, "")}/api/v1/query?query=${encodeURIComponent(query)}`;
      let answer: MatrixAnswer;
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 5000) });
        answer = (await readCappedJson(response, url, {
          limitBytes: HOST_QUERY_MAX_BYTES,
          limitName: "the host query limit",
        })) as MatrixAnswer;
      } catch (error) {
        throw new UnavailableError(subject, (error as Error).message, { cause: error });
      }
      if (answer.status !== "success" || answer.data?.resultType !== "matrix")
        throw new UnavailableError(subject, answer.error ?? `unexpected answer (${answer.status})`);
      const watts = new Float64Array(options.zones.length);
      let sampleSeconds = Number.NEGATIVE_INFINITY;
      for (const [i, zone] of options.zones.entries()) {
        const series = answer.data.result.find((s) => s.metric.zone === zone);
        if (series === undefined) {
          if (zone === "package") throw new UnavailableError(subject, "no package series");
          continue; // a host without this zone (e.g. no dram domain): 0 W, as Kepler reports nothing there
        }
        const [before, last] = series.values.slice(-2);
        if (before === undefined || last === undefined) throw new UnavailableError(subject, `fewer than two ${zone} samples`);
        const joules = Number(last[1]) - Number(before[1]);
        if (!(joules >= 0)) throw new UnavailableError(subject, `${zone} energy fell (host Kepler restarted)`);
        watts[i] = joules / (last[0] - before[0]);
        sampleSeconds = Math.max(sampleSeconds, last[0]);
      }
      if (now() - sampleSeconds > maxAge)
        throw new UnavailableError(subject, `last sample ${Math.round(now() - sampleSeconds)} s old (stale)`);
      return { watts, sampleSeconds };
    },
  };
}
