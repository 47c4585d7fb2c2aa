// `kepler-model-exporter`: the exporter command alone, for VMs: built into dist/kepler-model-exporter.mjs
// (npm run build:exporter) it runs on plain Node without the TypeScript loader or the other commands'
// libraries, in about half the memory of `kepler-model exporter`.
import { runCommand } from "./run-command.js";
import { exporterCommand } from "./commands/exporter.js";

process.exitCode = await runCommand(exporterCommand, process.argv.slice(2));
