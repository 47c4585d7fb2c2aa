// Preloaded (node --import) into a timed whole process of ours that is not bench code (the kepler-model
// command itself): at exit it prints the process's peak RSS as the last stdout line, the shape
// bench/reference/run.ts reads from every timed child.
import { writeSync } from "node:fs";

process.on("exit", () => {
  writeSync(1, `${JSON.stringify({ rows: 0, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
});
