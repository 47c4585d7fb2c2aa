import type { Command } from "../command.js";
import { estimateCommand } from "./estimate.js";
import { evaluateCommand } from "./evaluate.js";
import { exporterCommand } from "./exporter.js";
import { extractCommand } from "./extract.js";
import { isolateCommand } from "./isolate.js";
import { queryCommand } from "./query.js";
import { reportCommand } from "./report.js";
import { s3PushCommand } from "./s3-push.js";
import { modelsCommand } from "./models.js";
import { pipelineCommand } from "./pipeline.js";
import { serveCommand } from "./serve.js";
import { trainCommand } from "./train.js";
import { validateCommand } from "./validate.js";
import { vmTrainCommand } from "./vm-train.js";

/** Every `kepler-model` subcommand, in the order `--help` lists them. Add one line per new command file. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  queryCommand,
  validateCommand,
  extractCommand,
  trainCommand,
  isolateCommand,
  pipelineCommand,
  modelsCommand,
  estimateCommand,
  evaluateCommand,
  reportCommand,
  s3PushCommand,
  vmTrainCommand,
  exporterCommand,
];
