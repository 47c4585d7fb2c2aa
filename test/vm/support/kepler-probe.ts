// Builds test/vm/kepler-reader/probe (a driver of Kepler v0.11.4's own reader files, kept unchanged in
// test/fixtures/kepler/v0.11.4/internal/device) with Debian's Go in GOPATH mode, and talks to it over
// stdin/stdout. The files go where Go expects them: the probe inside Kepler's import path (Go forbids
// importing internal/ from outside its tree) and the log/slog shim at "log/slog" (Go 1.19 has none).
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { REPO_ROOT } from "../../support/child-process.js";
import { requirement, systemTool } from "../../support/system-tools.js";

const KEPLER_IMPORT_PATH = "github.com/sustainable-computing-io/kepler";

const GOCODE = "/usr/share/gocode/src";
/** Go and the Debian Go sources Kepler's reader imports (GOPATH mode): the Kepler tests state `needs(...KEPLER_GO)`. */
export const KEPLER_GO = [
  systemTool("go"),
  requirement(
    "Debian's Go sources",
    ["github.com/prometheus/procfs", "golang.org/x/sys"].every((path) => existsSync(join(GOCODE, path)))
      ? undefined
      : `${GOCODE} lacks procfs or x/sys (apt-get install golang-github-prometheus-procfs-dev golang-golang-x-sys-dev)`,
  ),
];

/** A built probe binary in a temporary GOPATH. */
export interface BuiltProbe {
  binary: string;
  remove(): void;
}

/** Compiles the probe and Kepler's files (about 10 s the first time; Go caches in the temporary GOPATH). */
export function buildKeplerProbe(): BuiltProbe {
  const missing = KEPLER_GO.flatMap((tool) => tool.reason ?? []);
  if (missing.length > 0) throw new Error(`cannot build Kepler's reader: ${missing.join("; ")}`);
  const gopath = mkdtempSync(join(tmpdir(), "kepler-gopath-"));
  const kepler = join(gopath, "src", KEPLER_IMPORT_PATH);
  mkdirSync(join(kepler, "cmd"), { recursive: true });
  cpSync(join(REPO_ROOT, "test/fixtures/kepler/v0.11.4/internal/device"), join(kepler, "internal/device"), {
    recursive: true,
    filter: (source) => !source.endsWith(".md"),
  });
  cpSync(join(REPO_ROOT, "test/vm/kepler-reader/probe"), join(kepler, "cmd/probe"), { recursive: true });
  cpSync(join(REPO_ROOT, "test/vm/kepler-reader/slog"), join(gopath, "src/log/slog"), { recursive: true });
  const binary = join(gopath, "probe");
  const built = spawnSync("go", ["build", "-o", binary, "."], {
    cwd: join(kepler, "cmd/probe"),
    encoding: "utf8",
    env: {
      ...process.env,
      GO111MODULE: "off",
      GOPATH: `${gopath}:${dirname(GOCODE)}`,
      GOCACHE: join(gopath, "cache"),
      GOFLAGS: "",
    },
  });
  if (built.status !== 0) throw new Error(`go build of Kepler's reader failed:\n${built.stderr}`);
  return { binary, remove: () => rmSync(gopath, { recursive: true, force: true }) };
}

/** One zone of one read, as the probe prints it. */
export interface ZoneRead {
  name: string;
  energyUj: number;
  powerUw: number;
  wrapped: boolean;
  /** Kepler's watts for the interval since the previous read (null on a first read). */
  watts: number | null;
  error?: string;
}

/** What the probe printed after building Kepler's meter and calling Init(). */
export interface ProbeStart {
  meter?: string;
  zones?: Array<{ name: string; index: number; path: string; maxEnergyUj: number }>;
  primary?: string;
  initError?: string;
}

/** A running probe: one request line, one JSON answer line. */
export class KeplerProbe {
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly lines: Interface,
    private readonly iterator: AsyncIterator<string>,
  ) {}

  /** Starts Kepler's `meter` ("rapl" or "hwmon") over `sysfs`; resolves with what Init() gave. */
  static async start(binary: string, meter: "rapl" | "hwmon", sysfs: string): Promise<{ probe: KeplerProbe; start: ProbeStart }> {
    const child = spawn(binary, ["-meter", meter, "-sysfs", sysfs], { stdio: ["pipe", "pipe", "pipe"] });
    const lines = createInterface({ input: child.stdout });
    const probe = new KeplerProbe(child, lines, lines[Symbol.asyncIterator]());
    return { probe, start: (await probe.next()) as ProbeStart };
  }

  private async next(): Promise<unknown> {
    const line = await this.iterator.next();
    if (line.done) throw new Error("Kepler's reader probe exited");
    return JSON.parse(line.value);
  }

  /** Reads every zone at `seconds` on the test's clock. */
  async read(seconds: number): Promise<ZoneRead[]> {
    this.child.stdin.write(`read ${seconds}\n`);
    return (await this.next()) as ZoneRead[];
  }

  /** `reads` rounds of every zone as fast as Kepler's reader goes (wall clock). */
  async hammer(
    reads: number,
    maxWatts: number,
  ): Promise<{
    reads: number;
    failed: number;
    wraps: number;
    badDecreases: number;
    outOfRange: number;
    seconds: number;
    errors: string[];
  }> {
    this.child.stdin.write(`hammer ${reads} ${maxWatts}\n`);
    return (await this.next()) as Awaited<ReturnType<KeplerProbe["hammer"]>>;
  }

  close(): void {
    this.lines.close();
    this.child.stdin.end();
    this.child.kill();
  }
}
