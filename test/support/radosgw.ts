// A real S3 server for tests: Ceph radosgw from Debian (ceph-mon, ceph-osd, radosgw, ceph-common) on one
// node, in memory (memstore), on 127.0.0.1, with `auth none` between the daemons and one S3 user.
// Started in about 15 s; `stop()` ends the three daemons by PID and removes the scratch folder.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { systemTool } from "./system-tools.js";

const run = promisify(execFile);

/** A running radosgw with one user; `endpoint` is http://127.0.0.1:<port>. */
export interface RadosgwInstance {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Stops only the gateway (the bucket becomes unreachable); `resume()` starts it again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** The Ceph daemons and CLI on PATH (Debian packages radosgw, ceph-mon, ceph-osd, ceph-common; .ci/run installs them). */
export const RADOSGW_TOOLS = [systemTool("radosgw"), systemTool("ceph-mon"), systemTool("ceph-osd"), systemTool("ceph")] as const;
export const RADOSGW_BINARY = RADOSGW_TOOLS[0].path ?? "radosgw";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForHttp(url: string, timeoutMs: number, describe: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`radosgw did not answer at ${url} within ${timeoutMs} ms\n${await describe()}`);
    await sleep(250);
  }
}

async function pidOf(path: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(path, "utf8")).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function killAndWait(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
}

/** Starts mon, osd and radosgw in a scratch folder and creates the user. */
export async function startRadosgw(): Promise<RadosgwInstance> {
  const dir = await mkdtemp(join(tmpdir(), "radosgw-test-"));
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const conf = join(dir, "ceph.conf");
  const ceph = (args: string[], timeoutSeconds = 30) =>
    run("timeout", [String(timeoutSeconds), "ceph", "-c", conf, ...args], { cwd: dir });
  const fsid = randomUUID();
  for (const sub of ["mon/a", "osd", "run", "log", "rgw"]) await mkdir(join(dir, sub), { recursive: true });
  await writeFile(
    conf,
    `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
run dir = ${dir}/run
log file = ${dir}/log/$name.log
admin socket = ${dir}/run/$name.asok
pid file = ${dir}/run/$name.pid
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd objectstore = memstore
memstore device bytes = 536870912
osd crush chooseleaf type = 0
[mon]
mon data = ${dir}/mon/$id
[osd]
osd data = ${dir}/osd/$id
osd max object name len = 460
osd max object namespace len = 64
[client.rgw]
ms mon client mode = crc
rgw init timeout = 60
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`,
  );
  const rgwPid = join(dir, "run", "client.rgw.pid");
  const monPid = join(dir, "run", "mon.a.pid");
  let osdPid = "";
  const describe = async () => {
    const logs = await Promise.all(
      ["client.rgw", "mon.a", "osd.0"].map(async (name) =>
        (await readFile(join(dir, "log", `${name}.log`), "utf8").catch(() => "")).split("\n").slice(-15).join("\n"),
      ),
    );
    return logs.join("\n---\n");
  };
  const startGateway = async () => {
    await run(RADOSGW_BINARY, ["-c", conf, "-n", "client.rgw"], { cwd: dir });
    await waitForHttp(`http://127.0.0.1:${rgwPort}/`, 90_000, describe);
  };
  const stopAll = async () => {
    await killAndWait(await pidOf(rgwPid));
    await killAndWait(osdPid === "" ? undefined : await pidOf(osdPid));
    await killAndWait(await pidOf(monPid));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run("monmaptool", ["--create", "--fsid", fsid, "--addv", "a", `[v2:127.0.0.1:${monPort}]`, join(dir, "monmap")]);
    await run("ceph-mon", ["-c", conf, "--mkfs", "-i", "a", "--monmap", join(dir, "monmap")]);
    await run("ceph-mon", ["-c", conf, "-i", "a"]);
    const id = (await ceph(["osd", "create"])).stdout.trim();
    osdPid = join(dir, "run", `osd.${id}.pid`);
    await mkdir(join(dir, "osd", id), { recursive: true });
    await run("ceph-osd", ["-c", conf, "-i", id, "--mkfs"]);
    await ceph(["osd", "crush", "add-bucket", "localhost", "host"]);
    await ceph(["osd", "crush", "move", "localhost", "root=default"]);
    await ceph(["osd", "crush", "add", `osd.${id}`, "1.0", "host=localhost"]);
    await run("ceph-osd", ["-c", conf, "-i", id]);
    await startGateway();
    const accessKeyId = "TESTACCESS";
    const secretAccessKey = "testsecret";
    await run("timeout", [
      "60",
      "radosgw-admin",
      "-c",
      conf,
      "user",
      "create",
      "--uid=test",
      "--display-name=test",
      `--access-key=${accessKeyId}`,
      `--secret-key=${secretAccessKey}`,
    ]);
    return {
      endpoint: `http://127.0.0.1:${rgwPort}`,
      accessKeyId,
      secretAccessKey,
      async pause() {
        await killAndWait(await pidOf(rgwPid));
      },
      async resume() {
        await startGateway();
      },
      stop: stopAll,
    };
  } catch (error) {
    const logs = await describe();
    await stopAll();
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
}
