// `kepler-model report`: an accuracy report of a pipeline's AbsPower models on a recording, as one
// self-contained HTML file plus each chart as SVG and PNG (the reference's `plot` command and export
// error report, with the numbers `evaluate` prints).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { REPORT_FOLDER } from "../../services/models/index.js";
import { listModelFolders } from "../../services/models/list-model-folders.js";
import { type Command, UsageError } from "../command.js";
import { progressPrinter } from "../progress.js";
import { collectReport } from "../report/collect-report.js";
import { type RenderedChart, renderSourceCharts } from "../report/report-charts.js";
import { renderReportHtml } from "../report/report-html.js";
import { readPipelineMetadata, readRecording } from "./evaluate.js";

type Flags = Readonly<Record<string, string | boolean | undefined>>;
const text = (flags: Flags, name: string): string => (typeof flags[name] === "string" ? (flags[name] as string) : "");

/** The report's HTML file name inside --out. */
export const REPORT_HTML = "report.html";

export const reportCommand: Command = {
  name: "report",
  summary: "Write an accuracy report of a pipeline on a recording: report.html plus every chart as SVG and PNG.",
  usage: "--pipeline <name> --input <response.json[.gz]> [--out <dir>] [--model-path <dir>]",
  flags: [
    { name: "pipeline", aliases: ["pipeline-name"], valueName: "name", description: "Pipeline folder in the model path." },
    {
      name: "input",
      valueName: "file",
      description: "The recording: a saved Prometheus response (`kepler-model query`); .gz is read too.",
    },
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
  ],
  async run({ flags, stdout, stderr, env }) {
    const pipelineName = text(flags, "pipeline");
    if (pipelineName === "") throw new UsageError("--pipeline is required");
    const input = text(flags, "input");
    if (input === "") throw new UsageError("--input is required");
    const { modelPath } = readConfig({ modelPath: modelPathKey }, env, flags);
    const out = text(flags, "out") || join(modelPath, pipelineName, REPORT_FOLDER);
    const metadata = await readPipelineMetadata(modelPath, pipelineName);
    const models = (await listModelFolders(modelPath, pipelineName)).filter((m) => m.outputType === "AbsPower");
    if (models.length === 0) throw new Error(`no AbsPower model in ${join(modelPath, pipelineName)}`);
    const progress = progressPrinter(stderr);
    progress.show({ stage: "read", done: 0, total: 1, subject: input, message: "reading the recording" });
    const response = await readRecording(input);
    const data = await collectReport(modelPath, pipelineName, input, response, models, {
      extractor: metadata.extractor === "smooth" ? "smooth" : "default",
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
      charts.push(...(await renderSourceCharts(source)));
    }
    progress.end();
    await mkdir(out, { recursive: true });
    for (const chart of charts) {
      await writeFile(join(out, `${chart.name}.svg`), chart.svg);
      await writeFile(join(out, `${chart.name}.png`), chart.png);
    }
    await writeFile(join(out, REPORT_HTML), renderReportHtml(data, charts));
    stdout.write(
      `wrote ${join(out, REPORT_HTML)} and ${charts.length} charts (SVG and PNG): ${models.length - data.skipped.length} models on ${data.sources.length} source(s)\n`,
    );
    for (const skipped of data.skipped) stdout.write(`skipped ${skipped.where}/${skipped.modelName}: ${skipped.reason}\n`);
    return 0;
  },
};
