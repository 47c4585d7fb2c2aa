// The recorded coremark response in a real Prometheus: backfilled (moved by a shift, normally to
// yesterday, so that it is inside the TSDB's retention) after the test has edited its copy if it wants.
import { recordedResponseText } from "./extractor-fixtures.js";
import {
  type PrometheusInstance,
  type SavedResponseDocument,
  savedResponseToOpenMetrics,
  startPrometheus,
} from "./prometheus.js";

/** The recorded coremark response as saved JSON: a fresh copy each call, the caller's to edit. */
export function coremarkDocument(): SavedResponseDocument {
  return JSON.parse(recordedResponseText("coremark")) as SavedResponseDocument;
}

/** Starts Prometheus with `document` backfilled `shiftSeconds` later and Prometheus' `lookbackDelta` (e.g. "1s"). */
export function startBackfilledPrometheus(
  document: SavedResponseDocument,
  shiftSeconds: number,
  lookbackDelta: string,
): Promise<PrometheusInstance> {
  return startPrometheus({ backfillOpenMetrics: savedResponseToOpenMetrics(document, shiftSeconds), lookbackDelta });
}
