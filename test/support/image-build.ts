// The container image build of test/deploy/image-build.test.ts: a Node base made from Debian packages
// (deploy/image/build-base.sh, mmdebstrap) imported into podman, and the Dockerfile built on it
// (NODE_IMAGE), in a private podman storage inside one /tmp/image-build-<pid>-* folder. The global setup
// (image-build-setup.ts) starts it in the background when the run includes that test, so its minutes
// overlap the other test files; the test then waits for the result file, or builds in the foreground.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "./child-process.js";
import { requirement, systemTool } from "./system-tools.js";

const run = promisify(execFile);

export const IMAGE_BUILD_TEST = "test/deploy/image-build.test.ts";
const optedOut =
  process.env.KEPLER_MODEL_SKIP_IMAGE_BUILD === "1" ? "KEPLER_MODEL_SKIP_IMAGE_BUILD=1 skips the image build" : undefined;
export const IMAGE_TOOLS = [
  systemTool("podman"),
  systemTool("mmdebstrap"),
  systemTool("runc"),
  requirement("image build", optedOut),
];
export const imageBuildRuns = IMAGE_TOOLS.every((tool) => tool.available);

export const BASE = "localhost/kepler-model-node:test";
export const IMAGE = "localhost/kepler-model:test";
const FOLDER_PREFIX = "image-build-";
const RESULT_FILE = "build-result.json";

/** Seconds per build phase (base, import, build). */
export type ImageBuildTimings = Record<string, number>;

interface CommandOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Run at the lowest CPU priority (a build that overlaps tests). */
  nice?: boolean;
}

/** Runs a command, at the lowest CPU priority when asked. */
async function command(file: string, args: readonly string[], env: NodeJS.ProcessEnv, options: CommandOptions): Promise<string> {
  const [program, programArgs] = options.nice === true ? ["nice", ["-n", "19", file, ...args]] : [file, args];
  const { stdout } = await run(program, programArgs, {
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeoutMs ?? 600_000,
    signal: options.signal,
  });
  return stdout;
}

/** podman with private storage in `folder` and the settings this machine needs (docs/deploy.md). */
export function podman(folder: string, args: readonly string[], options: CommandOptions = {}): Promise<string> {
  const storage = ["--root", join(folder, "storage"), "--runroot", join(folder, "run")];
  // overlay, not vfs: vfs copies the whole file system at every Dockerfile step (15 GB, 8+ minutes here).
  const settings = ["--storage-driver", "overlay", "--cgroup-manager", "cgroupfs", "--runtime", "runc"];
  // TMPDIR: podman's and buildah's temporary files (else /var/tmp) go inside the folder too.
  return command(
    "podman",
    [...storage, ...settings, ...args],
    { CONTAINERS_CONF: join(folder, "containers.conf"), TMPDIR: folder },
    options,
  );
}

/** A fresh folder for one build, named after this process so a later run can tell it was left behind. */
export async function createImageFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), `${FOLDER_PREFIX}${process.pid}-`));
  // This machine cannot raise rlimits: no default ulimits, no pids limit.
  await writeFile(join(folder, "containers.conf"), "[containers]\ndefault_ulimits = []\npids_limit = 0\n");
  return folder;
}

/** Builds the base and the image into `folder`'s storage; mmdebstrap's temporary root goes inside `folder` too. */
export async function buildImage(folder: string, options: CommandOptions = {}): Promise<ImageBuildTimings> {
  const timings: ImageBuildTimings = {};
  const timed = async (phase: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    timings[phase] = Math.round((performance.now() - started) / 1000);
  };
  const base = join(folder, "base.tar");
  await timed("base", () => command(join(REPO_ROOT, "deploy/image/build-base.sh"), [base], { TMPDIR: folder }, options));
  await timed("import", () => podman(folder, ["import", base, BASE], options));
  await rm(base);
  const dockerfile = join(REPO_ROOT, "Dockerfile");
  await timed("build", () =>
    podman(
      folder,
      ["build", "--network", "host", "--build-arg", `NODE_IMAGE=${BASE}`, "-t", IMAGE, "-f", dockerfile, REPO_ROOT],
      {
        ...options,
        timeoutMs: 900_000,
      },
    ),
  );
  return timings;
}

/** Builds in the background and leaves the outcome in `folder` for waitForImageBuild (another process). */
export async function buildImageInBackground(folder: string, signal: AbortSignal): Promise<void> {
  const result = await buildImage(folder, { signal, nice: true }).then(
    (timings) => ({ timings }),
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
  await writeFile(join(folder, RESULT_FILE), JSON.stringify(result)).catch(() => undefined);
}

/** The background build's timings, once it has finished; throws its error if it failed. */
export async function waitForImageBuild(folder: string, timeoutMs: number): Promise<ImageBuildTimings> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(join(folder, RESULT_FILE), "utf8").catch(() => undefined);
    if (text !== undefined) {
      const result = JSON.parse(text) as { timings?: ImageBuildTimings; error?: string };
      if (result.timings === undefined) throw new Error(`the background image build failed: ${result.error}`);
      return result.timings;
    }
    if (Date.now() > deadline) throw new Error(`the background image build in ${folder} did not finish in ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * Removes a build folder: its containers, then whatever is still mounted inside it (a container's root, the
 * storage's own bind mount, a killed mmdebstrap's /proc), then the files.
 */
export async function removeImageFolder(folder: string): Promise<void> {
  await podman(folder, ["rm", "--all", "--force"], { timeoutMs: 120_000 }).catch(() => undefined);
  const mounts = (await readFile("/proc/mounts", "utf8")).split("\n").map((line) => line.split(" ")[1] ?? "");
  const inside = mounts.filter((point) => point.startsWith(`${folder}/`)).sort((a, b) => b.length - a.length);
  for (const point of inside) await run("umount", ["--lazy", point]).catch(() => undefined);
  await rm(folder, { recursive: true, force: true });
}

/** Removes the build folders of processes that are gone (killed before their cleanup ran). */
export async function removeAbandonedImageFolders(): Promise<void> {
  for (const name of await readdir(tmpdir())) {
    const pid = Number(/^image-build-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) await removeImageFolder(join(tmpdir(), name));
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
