// Reading the VM exporter from outside, as the end-to-end test does: its package watts, joules and model
// from a /metrics text, `promtool check metrics` on that text, and instant queries on the Prometheus that
// scrapes it.
import { execFile } from "node:child_process";
import { PROMTOOL_BINARY } from "../../support/prometheus.js";

const packageSample = (metric: string, text: string) =>
  Number(new RegExp(`^${metric}\\{[^}]*zone="package"[^}]*\\} (\\S+)$`, "m").exec(text)?.[1]);
export const packageJoules = (text: string) => packageSample("kepler_node_cpu_joules_total", text);
export const packageWatts = (text: string) => packageSample("kepler_node_cpu_watts", text);
export const modelOf = (text: string) => /kepler_model_exporter_model_info\{model="([^"]+)"/.exec(text)?.[1];

/** promtool's linter on a metrics text: exit code and everything it printed. */
export function promtoolCheckMetrics(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(PROMTOOL_BINARY, ["check", "metrics"], (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? 1), output: stdout + stderr }),
    );
    child.stdin?.end(text);
  });
}

export interface ScrapingPrometheus {
  /** An instant query's result. */
  query(query: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** Waits (at most 20 s) until Prometheus holds `count` samples of `query` over the last 5 minutes. */
  waitForSamples(query: string, count: number): Promise<void>;
}

export function scrapingPrometheus(baseUrl: string): ScrapingPrometheus {
  const query: ScrapingPrometheus["query"] = async (q) => {
    const response = await fetch(`${baseUrl}/api/v1/query?query=${encodeURIComponent(q)}`);
    return ((await response.json()) as { data: { result: Awaited<ReturnType<ScrapingPrometheus["query"]>> } }).data.result;
  };
  const scrapedSamples = async (q: string) => Number((await query(`count_over_time(${q}[5m])`))[0]?.value[1] ?? 0);
  return {
    query,
    async waitForSamples(q, count) {
      const until = Date.now() + 20_000;
      while ((await scrapedSamples(q)) < count) {
        if (Date.now() > until) throw new Error(`Prometheus scraped fewer than ${count} samples of ${q}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}
