// Integration: Prometheus' lookback delta over backfilled data (no staleness markers). A series that
// stops is repeated at every step of the lookback window, so a container whose series split (Kepler's
// `command` label changing, a restarted exporter) has two series with samples at the same steps. Such
// windows used to be rejected as "two values at one time"; the extractor now keeps, per step, the
// sample of the series that changed most recently (docs/deviations.md, E13). Expected tables come from
// the recording with Prometheus 2's lookback applied by hand: at step s the newest sample in
// [s - lookback, s].
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataTable } from "../../services/domain/data-table.js";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { type ExtractOptions, extract } from "../../services/extractor/domain/extract.js";
import { readPrometheusWindow } from "../../services/extractor/domain/read-prometheus-window.js";
import { coremarkDocument, startBackfilledPrometheus } from "../support/backfilled-coremark.js";
import {
  COREMARK_WINDOW,
  type PrometheusInstance,
  PROMETHEUS_TOOLS,
  type SavedResponseDocument,
  shiftToYesterday,
} from "../support/prometheus.js";
import { needs } from "../support/system-tools.js";

const { stepSeconds: STEP_SECONDS, first: FIRST, last: LAST } = COREMARK_WINDOW;
const saved = coremarkDocument();
const SHIFT = shiftToYesterday();
const live = needs(...PROMETHEUS_TOOLS); // a live Prometheus, or the suites are skipped naming the package

/** The recording as query_range returns it with the given lookback: stopped series repeated. */
function withLookback(document: SavedResponseDocument, lookbackSeconds: number): SavedResponseDocument {
  const out: SavedResponseDocument = {};
  for (const [name, seriesList] of Object.entries(document)) {
    out[name] = seriesList.map((series) => {
      const values: Array<[number, string]> = [];
      let next = 0;
      for (let step = FIRST; step <= LAST; step += STEP_SECONDS) {
        while (next < series.values.length && series.values[next]![0] <= step) next++;
        const latest = series.values[next - 1];
        if (latest !== undefined && latest[0] >= step - lookbackSeconds) values.push([step, latest[1]]);
      }
      return { metric: series.metric, values };
    });
  }
  return out;
}

const TABLES = [
  { energySource: "rapl-sysfs", featureGroup: "CounterOnly", level: "node", extractor: "default" },
  { energySource: "acpi", featureGroup: "CounterIRQCombined", level: "node", extractor: "default" },
  { energySource: "rapl-sysfs", featureGroup: "CounterOnly", level: "container", extractor: "default" },
] satisfies ExtractOptions[];

for (const [lookbackDelta, lookbackSeconds] of [
  ["10s", 10],
  ["5m", 300],
] as const) {
  describe(`extraction over a real Prometheus with lookback ${lookbackDelta} (backfilled, no staleness markers)`, live, () => {
    const expected = parsePrometheusResponse(JSON.stringify(withLookback(saved, lookbackSeconds)));
    let prometheus: PrometheusInstance;
    beforeAll(async () => {
      prometheus = await startBackfilledPrometheus(saved, SHIFT, lookbackDelta);
    }, 120_000);
    afterAll(async () => {
      await prometheus?.stop();
    });
    const read = () =>
      readPrometheusWindow({
        baseUrl: prometheus.baseUrl,
        startSeconds: FIRST + SHIFT,
        endSeconds: LAST + SHIFT,
        stepSeconds: STEP_SECONDS,
        metricPrefix: "kepler_",
        thirdPartyMetrics: [],
        timeoutMs: 10_000,
      });

    it("Prometheus repeats stopped series as the hand-applied lookback says (more samples than recorded)", async () => {
      const live = await read();
      const name = "kepler_container_cpu_cycles_total";
      const recorded = saved[name]!.reduce((total, series) => total + series.values.length, 0);
      expect(live.metrics.get(name)!.values.length).toBe(expected.metrics.get(name)!.values.length);
      expect(live.metrics.get(name)!.values.length).toBeGreaterThan(recorded);
    });

    for (const options of TABLES) {
      it(`${options.energySource}/${options.featureGroup}/${options.level}: extracted, not rejected, and equal to the table of the repeated samples`, async () => {
        const live = extract(await read(), options);
        expectSameTable(live.table, extract(expected, options).table);
        expect(live.notices.some((notice) => notice.includes("the series that changed most recently was kept"))).toBe(true);
      });
    }
  });
}

function expectSameTable(live: DataTable, expected: DataTable): void {
  expect(live.columnNames).toEqual(expected.columnNames);
  expect(live.rowCount).toBe(expected.rowCount);
  expect(Array.from(live.timestamps, (t) => t - SHIFT)).toEqual(Array.from(expected.timestamps));
  expect(Array.from(live.values)).toEqual(Array.from(expected.values));
  expect(live.rowIds).toEqual(expected.rowIds);
}
