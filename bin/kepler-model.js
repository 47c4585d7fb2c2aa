#!/usr/bin/env node
// The `kepler-model` command. Sources are TypeScript, run through tsx's loader (no separate compile step).
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../cli/main.ts");
process.exitCode = await runCli(process.argv.slice(2));
