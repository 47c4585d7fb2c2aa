// Step "query": the run's data as a saved Prometheus response; a live window is read through the
// extractor's QueryPrometheus, inline bytes are used as they came.
import type { PipelineData } from "../pipeline-options.js";
import type { StepContext } from "./step-context.js";

/** The response bytes of `data` (`what`: workload or idle, the progress subject). */
export async function queryData(context: StepContext, data: PipelineData, what: string): Promise<Uint8Array> {
  if (data.kind === "inline") return data.response;
  context.emit("query", what, 0, 1, `reading ${data.window.baseUrl}`);
  const bytes = await context.peers.queryPrometheus(data.window, context.signal);
  context.emit("query", what, 1, 1, `read ${bytes.byteLength} bytes`);
  return bytes;
}
