// The baseline checkout's contender for `npm run bench -- reference --baseline=<dir>`: its own
// bench/reference/ours-run.ts bundled (with its esbuild and its bundle options) beside a copy of its
// command bundle (dist/), in a folder of this run, so <dir> is only read, never written. A symlink to its
// node_modules lets the copies load the libraries they leave unbundled, as they do in <dir>.
// Pieces the baseline lacks (ours-command.mjs and peak-rss-preload.mjs came later) are taken from this
// checkout and listed in `notes`; they run the baseline's own bundle, so the work timed is the baseline's.
import { existsSync } from "node:fs";
import { copyFile, cp, mkdir, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { checkoutRevision, commandRunsFrom } from "../support/command-bundle.js";

const here = new URL(".", import.meta.url).pathname;

export interface BaselineCheckout {
  /** The baseline's ours-run.ts bundled (the extract and pipeline cases), or undefined when it has none. */
  readonly oursRunBundle: string | undefined;
  /** The script that runs the baseline's command bundle with the arguments given (ours-command.mjs). */
  readonly commandScript: string;
  /** Preloaded into the command's process to report its peak RSS. */
  readonly peakRssPreload: string;
  /** What ran and what was borrowed, for the output. */
  readonly notes: readonly string[];
}

/** Prepares the baseline checkout at `dir` to run from `workDir/baseline`; `bundleName` as this checkout's. */
export async function prepareBaseline(dir: string, workDir: string, bundleName: string): Promise<BaselineCheckout> {
  const mirror = join(workDir, "baseline");
  const notes = [
    `baseline ${dir} at ${checkoutRevision(dir)}, its command bundle (bin/kepler-model.js would run its ${commandRunsFrom(dir)})`,
  ];
  await mkdir(join(mirror, "bench/reference"), { recursive: true });
  await cp(join(dir, "dist"), join(mirror, "dist"), { recursive: true });
  await symlink(join(dir, "node_modules"), join(mirror, "node_modules"), "dir");

  const own = (file: string) => join(dir, "bench/reference", file);
  const commandScript = join(mirror, "bench/reference/ours-command.mjs");
  if (existsSync(own("ours-command.mjs"))) await copyFile(own("ours-command.mjs"), commandScript);
  else {
    await copyFile(join(here, "ours-command.mjs"), commandScript);
    notes.push(
      "the baseline has no bench/reference/ours-command.mjs: HEAD's (6 lines: import dist/kepler-model.mjs, runCli) runs the baseline's bundle",
    );
  }
  const peakRssPreload = existsSync(own("peak-rss-preload.mjs"))
    ? own("peak-rss-preload.mjs")
    : join(here, "peak-rss-preload.mjs");
  if (peakRssPreload.startsWith(here))
    notes.push("the baseline has no peak-rss-preload.mjs: HEAD's reports the command's peak RSS");

  let oursRunBundle: string | undefined;
  if (existsSync(own("ours-run.ts"))) {
    // The baseline's own esbuild and options, as its own bench would bundle it.
    const esbuild = createRequire(join(dir, "package.json"))("esbuild") as typeof import("esbuild");
    const optionsFile = existsSync(join(dir, "bin/bundle-options.mjs"))
      ? join(dir, "bin/bundle-options.mjs")
      : join(here, "../../bin/bundle-options.mjs");
    const { NODE_BUNDLE_OPTIONS } = (await import(pathToFileURL(optionsFile).href)) as { NODE_BUNDLE_OPTIONS: object };
    await esbuild.build({
      entryPoints: { [bundleName]: own("ours-run.ts") },
      outdir: join(mirror, "dist"),
      chunkNames: `${bundleName}-chunk-[hash]`,
      absWorkingDir: dir,
      ...NODE_BUNDLE_OPTIONS,
    });
    oursRunBundle = join(mirror, "dist", `${bundleName}.mjs`);
  } else notes.push("the baseline has no bench/reference/ours-run.ts: its extract and pipeline cases are not timed");
  return { oursRunBundle, commandScript, peakRssPreload, notes };
}
