// The kepler-model command as bin/kepler-model.js runs it when the bundle is current (a fresh clone after
// npm ci): dist/kepler-model.mjs's runCli with the arguments given. The bench uses this instead of the bin
// itself because in a checkout being edited the bin runs the TypeScript sources; the bin's own check
// (a stat of ~440 source files, ~35 ms) is the only part left out.
const { runCli } = await import(new URL("../../dist/kepler-model.mjs", import.meta.url).href);
process.exitCode = await runCli(process.argv.slice(2));
