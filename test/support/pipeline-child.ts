// A separate process running the whole mesh over MODEL_PATH and RunPipeline in a loop on the recorded
// coremark response (inline), so the crash suite can SIGKILL it while a pipeline run writes models,
// tables and pipeline files (services/registry/crash-safety.test.ts).
//   node --import tsx pipeline-child.ts <modelPath>
// Prints "ready" once the mesh is up, then "ran <n>" after each run.
import { recordedResponseText } from "./extractor-fixtures.js";
import { RunPipelineOptions } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { startMesh } from "../../services/mesh/start-mesh.js";
import { createPipelineClient } from "../../services/pipeline/client.js";

const [modelPath] = process.argv.slice(2);
const ports = Object.fromEntries(
  ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].map((name) => [`${name}-port`, "0"]),
);
const mesh = await startMesh({
  logger: silentLogger(),
  flags: { ...ports, "model-path": modelPath as string, "registry-rescan-ms": "0" },
});
const address = mesh.servers.find((server) => server.name === "pipeline")?.address as string;
const pipeline = createPipelineClient(address);
const response = Buffer.from(recordedResponseText("coremark"));
const options = RunPipelineOptions.fromPartial({
  pipelineName: "crash",
  energySources: ["acpi", "rapl-sysfs"],
  featureGroups: ["CounterOnly"],
  isolator: IsolatorKind.ISOLATOR_KIND_NONE,
  absTrainerNames: ["LinearRegressionTrainer", "SGDRegressorTrainer", "KNeighborsRegressorTrainer"],
  dynTrainerNames: ["LinearRegressionTrainer"],
});
process.stdout.write("ready\n");
for (let n = 1; ; n++) {
  for await (const _ of pipeline.client.runPipeline(
    (async function* () {
      yield { content: { $case: "options" as const, value: options } };
      yield { content: { $case: "responseChunk" as const, value: response } };
    })(),
  ));
  process.stdout.write(`ran ${n}\n`);
}
