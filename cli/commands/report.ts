// `kepler-model report`: an accuracy report of a pipeline's AbsPower models on a recording (held-out rows
// unless --in-sample), as one self-contained HTML file plus each chart as SVG and PNG (the reference's
// `plot` command and export error report, with the numbers `evaluate` prints), the pipeline read from a
// local folder or a running registry.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { REPORT_FOLDER, reportPredictionsFile } from "../../services/models/index.js";
import { listModelFolders } from "../../services/models/list-model-folders.js";
import { peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { type Command, UsageError } from "../command.js";
import { COMMON_FLAGS } from "../common-flags.js";
import { booleanFlag, requiredFlag, textFlag } from "../flag-readers.js";
import { withRegistryPipeline } from "../report/registry-pipeline.js";
import { progressPrinter } from "../progress.js";
import { collectReport } from "../report/collect-report.js";
import { type RenderedChart, renderSourceCharts } from "../report/report-charts.js";
import { renderReportHtml } from "../report/report-html.js";
import { predictionsCsv } from "../report/predictions-csv.js";
import { readPipelineMetadata, readRecording } from "./evaluate.js";

/** The report's HTML file name inside --out. */
const REPORT_HTML = "report.html";

export const reportCommand: Command = {
  name: "report",
  summary: "Write an accuracy report of a pipeline on a recording: report.html plus every chart as SVG and PNG.",
  usage:
    "--pipeline <name> --input <response.json[.gz]> [--out <dir>] [--model-path <dir> | --registry-address <host:port>] [--in-sample]",
  flags: [
    { name: "pipeline", aliases: ["pipeline-name"], valueName: "name", description: "Pipeline folder in the model path." },
    COMMON_FLAGS.recording,
    {
      name: "out",
      valueName: "dir",
      description:
        "Folder to write report.html and the charts into (created); default the pipeline's report/ folder, which the registry's /ui page shows.",
    },
    {
      name: "model-path",
      valueName: "dir",
      description: `Model folder to read (env MODEL_PATH, default ${modelPathKey.default}).`,
    },
    {
      name: "in-sample",
      boolean: true,
      description: "Score every row, the models' training rows included (labelled in-sample). Default: held-out rows only.",
    },
    ...CLIENT_SECURITY_FLAGS,
    {
      name: peerAddressKey("registry").flag,
      valueName: "host:port",
      description:
        "Read the pipeline from this running registry (whatever storage is behind it) instead of --model-path; --out is then required.",
    },
  ],
  async run({ flags, stdout, stderr, env }) {
    const pipelineName = requiredFlag(flags, "pipeline");
    const input = requiredFlag(flags, "input");
    const fromRegistry = flags[peerAddressKey("registry").flag] !== undefined;
    if (fromRegistry && textFlag(flags, "out") === undefined) throw new UsageError("--out is required with --registry-address");
    if (!fromRegistry) return reportIn(readConfig({ modelPath: modelPathKey }, env, flags).modelPath);
    const address = readConfig({ address: peerAddressKey("registry") }, env, flags).address;
    return withRegistryPipeline(address, commandConnection({ env, flags }), pipelineName, reportIn);

    async function reportIn(modelPath: string): Promise<number> {
      const out = textFlag(flags, "out") ?? join(modelPath, pipelineName, REPORT_FOLDER);
      const metadata = await readPipelineMetadata(modelPath, pipelineName);
      const models = (await listModelFolders(modelPath, pipelineName)).filter((m) => m.outputType === "AbsPower");
      if (models.length === 0) throw new Error(`no AbsPower model in ${join(modelPath, pipelineName)}`);
      const progress = progressPrinter(stderr);
      progress.show({ stage: "read", done: 0, total: 1, subject: input, message: "reading the recording" });
      const response = await readRecording(input);
      const data = await collectReport(modelPath, pipelineName, input, response, models, {
        extractor: metadata.extractor === "smooth" ? "smooth" : "default",
        inSample: booleanFlag(flags, "in-sample"),
        onModel: (model, index) =>
          progress.show({
            stage: "evaluate",
            done: index,
            total: models.length,
            subject: `${model.energySource}/${model.featureGroup}/${model.modelName}`,
            message: "applying the model",
          }),
      });
      const charts: RenderedChart[] = [];
      for (const [index, source] of data.sources.entries()) {
        progress.show({
          stage: "chart",
          done: index,
          total: data.sources.length,
          subject: source.energySource,
          message: "rendering",
        });
        charts.push(...(await renderSourceCharts(source, data.intervalLevel)));
      }
      progress.end();
      await mkdir(out, { recursive: true });
      for (const chart of charts) {
        await writeFile(join(out, `${chart.name}.svg`), chart.svg);
        await writeFile(join(out, `${chart.name}.png`), chart.png);
      }
      for (const source of data.sources)
        for (const rows of source.predictions)
          await writeFile(join(out, reportPredictionsFile(rows.model)), predictionsCsv(rows));
      await writeFile(join(out, REPORT_HTML), renderReportHtml(data, charts));
      stdout.write(
        `wrote ${join(out, REPORT_HTML)}, ${charts.length} charts (SVG and PNG) and each model's per-row predictions (CSV): ${models.length - data.skipped.length} models on ${data.sources.length} source(s)\n`,
      );
      for (const skipped of data.skipped) stdout.write(`skipped ${skipped.where}/${skipped.modelName}: ${skipped.reason}\n`);
      for (const source of data.sources) {
        const chosen = source.models.find((model) => model.chosen);
        if (chosen !== undefined)
          stdout.write(
            `best ${source.energySource}: ${chosen.featureGroup}/${chosen.modelName} (${chosen.scoredRows} MAE ${chosen.maeWatts.toFixed(4)} W)\n`,
          );
      }
      return 0;
    }
  },
};
