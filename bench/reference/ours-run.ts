// One timed case of ours, the counterpart of reference_run.py, run as a child by bench/reference/run.ts
// (which times the whole process); prints one JSON line with rows and peak RSS.
//   extract-node <response.json> | extract-container <response.json>
//   | pipeline <coremark.json> <trainers> <empty model folder>
import { readFile } from "node:fs/promises";
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { startMesh } from "../../services/mesh/start-mesh.js";
import { createPipelineClient } from "../../services/pipeline/client.js";

const [caseName, path, trainers, modelPath] = process.argv.slice(2);
let rows = 0;
if (caseName === "extract-node" || caseName === "extract-container") {
  const response = await readPrometheusResponseFile(path!);
  rows = extract(response, {
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    level: caseName === "extract-node" ? "node" : "container",
    extractor: "default",
  }).table.rowCount;
} else if (caseName === "pipeline") {
  // The same work as the reference's pipeline: both sources, CounterOnly, every trainer for AbsPower and
  // DynPower (min isolator), through the real services in this process: the pipeline and the four it
  // calls (the estimator serves models, which the reference's pipeline does not). The models are written
  // to the folder the bench gives, which it removes after timing, as the reference's MODEL_PATH is.
  const services = ["registry", "extractor", "isolator", "trainer", "pipeline"] as const;
  const mesh = await startMesh({
    logger: silentLogger(),
    services,
    flags: {
      ...Object.fromEntries(services.map((name) => [`${name}-port`, "0"])),
      "model-path": modelPath!,
      "registry-rescan-ms": "0",
    },
  });
  const pipeline = createPipelineClient(mesh.servers.find((server) => server.name === "pipeline")!.address);
  try {
    const names = trainers!.split(",");
    const requests = (async function* () {
      yield {
        content: {
          $case: "options" as const,
          value: RunPipelineOptions.fromPartial({
            pipelineName: "bench",
            energySources: ["rapl-sysfs", "acpi"],
            featureGroups: ["CounterOnly"],
            isolator: IsolatorKind.ISOLATOR_KIND_MIN,
            absTrainerNames: names,
            dynTrainerNames: names,
          }),
        },
      };
      yield { content: { $case: "responseChunk" as const, value: await readFile(path!) } };
    })();
    for await (const message of pipeline.client.runPipeline(requests))
      if (message.content?.$case === "result" && message.content.value.failureReason === "") rows++;
  } finally {
    pipeline.close();
    await mesh.close();
  }
} else throw new Error(`unknown case ${caseName}`);
process.stdout.write(`${JSON.stringify({ rows, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
