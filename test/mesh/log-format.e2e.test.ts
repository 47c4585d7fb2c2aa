// `--log-format auto` (the default): readable lines for a person at a terminal, one JSON object per line
// otherwise. The terminal is a real pseudo-terminal from util-linux `script` (Debian's bsdutils, always there).
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { REPO_ROOT, type RunningChild, spawnNode } from "../support/child-process.js";
import { needs, systemTool } from "../support/system-tools.js";

const SERVE = [
  "bin/kepler-model.js",
  "serve",
  "--no-default-models",
  ...SERVICE_NAMES.flatMap((name) => [`--${name}-port`, "0"]),
  "--metrics-port",
  "0",
];
const children: RunningChild[] = [];
afterEach(() => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("log format auto", () => {
  it("is JSON lines when stdout is not a terminal", async () => {
    const serve = spawnNode(SERVE);
    children.push(serve);
    await serve.waitForOutput(/Stop with Ctrl-C/);
    // pino writes asynchronously, so the last service's line may follow the banner.
    await serve.waitForOutput(/"service":"pipeline"[^\n]*"msg":"listening"/);
    const logs = serve
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"));
    expect(logs.length).toBeGreaterThanOrEqual(SERVICE_NAMES.length);
    expect(logs.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ level: 30, service: "estimator", msg: "listening" }),
    );
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
  });

  it("is pretty, coloured lines on a terminal", needs(systemTool("script")), async () => {
    const command = [process.execPath, "--import", "tsx", ...SERVE].join(" ");
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      cwd: REPO_ROOT,
      env: { ...process.env, FORCE_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString();
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner; output:\n${output}`)), 30_000);
      child.stdout.on("data", () => {
        if (output.includes("Stop with Ctrl-C") && output.includes("estimator ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.kill("SIGTERM");
    await exited;
    const colours = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, "g");
    const plain = output.replaceAll(colours, "").replaceAll("\r", "");
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening\n {4}service: "estimator"$/m);
    expect(output).toContain("\x1b[32mINFO\x1b[39m");
    expect(plain.split("\n").some((line) => line.startsWith('{"level"'))).toBe(false);
  });
});
