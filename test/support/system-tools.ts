// The system tools some tests run (Prometheus, kubectl, stress-ng, radosgw, chromium, podman, Go, ...).
// Each comes from an optional Debian package: where one is missing from PATH, the tests that need it are
// skipped with a reason naming the package, so `npm test` passes with only Node and git. CI installs every
// one (.ci/run), and there the closing-line reporter counts each skip as a failure.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, type TestContext, type TestOptions } from "vitest";

declare module "vitest" {
  interface TaskMeta {
    /** Why the test is skipped here (a missing tool and its Debian package); the reporter prints it. */
    skipReason?: string;
  }
}

/** A system tool as found on this machine's PATH. */
export interface SystemTool {
  readonly name: string;
  /** The executable's absolute path; undefined when missing. */
  readonly path: string | undefined;
  readonly available: boolean;
  /** Why it cannot be used (names the Debian package to install); undefined when available. */
  readonly reason: string | undefined;
  /** The Debian package that installs it (undefined for a requirement that is not a tool). */
  readonly debianPackage?: string;
}

/** The Debian package that installs each tool (what .ci/run installs), named in the skip reason. */
const DEBIAN_PACKAGES: Readonly<Record<string, string>> = {
  prometheus: "prometheus",
  promtool: "prometheus",
  kubectl: "kubernetes-client",
  "stress-ng": "stress-ng",
  radosgw: "radosgw",
  "ceph-mon": "ceph-mon",
  "ceph-osd": "ceph-osd",
  ceph: "ceph-common",
  chromium: "chromium",
  podman: "podman",
  buildah: "buildah",
  mmdebstrap: "mmdebstrap",
  runc: "runc",
  "fuse-overlayfs": "fuse-overlayfs",
  newuidmap: "uidmap",
  go: "golang-go",
  openssl: "openssl",
  unzip: "unzip",
  python3: "python3",
  script: "bsdutils",
};

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const found = new Map<string, SystemTool>();

/** Looks `name` up on PATH (as `command -v` does), once per test file. */
export function systemTool(name: string): SystemTool {
  const cached = found.get(name);
  if (cached !== undefined) return cached;
  const directories = (process.env.PATH ?? "").split(delimiter).filter((directory) => directory !== "");
  const path = directories.map((directory) => join(directory, name)).find(isExecutableFile);
  const debianPackage = DEBIAN_PACKAGES[name] ?? name;
  const reason = path !== undefined ? undefined : `${name} is not on PATH (apt-get install ${debianPackage})`;
  const tool: SystemTool = { name, path, available: path !== undefined, reason, debianPackage };
  found.set(name, tool);
  return tool;
}

/** A requirement that is not a tool on PATH (a library folder, an opt-out variable): missing when `reason` is set. */
export function requirement(name: string, reason: string | undefined): SystemTool {
  return { name, path: undefined, available: reason === undefined, reason };
}

/**
 * Options for `describe(name, needs(...), fn)` or `it(name, needs(...), fn)`: skipped, with the missing
 * tools' reasons as the test's `skipReason`, unless every tool is available.
 */
export function needs(...tools: readonly SystemTool[]): TestOptions {
  const reason = missingReason(tools);
  return reason === undefined ? {} : { skip: true, meta: { skipReason: reason } };
}

/** One sentence for every missing tool and requirement, e.g. `radosgw, ceph are not on PATH (apt-get install radosgw ceph-common)`. */
function missingReason(tools: readonly SystemTool[]): string | undefined {
  const missing = tools.filter((tool) => !tool.available);
  const onPath = missing.filter((tool) => tool.debianPackage !== undefined);
  const reasons = missing.filter((tool) => tool.debianPackage === undefined).map((tool) => tool.reason!);
  if (onPath.length > 1) {
    const packages = [...new Set(onPath.map((tool) => tool.debianPackage))].join(" ");
    reasons.unshift(`${onPath.map((tool) => tool.name).join(", ")} are not on PATH (apt-get install ${packages})`);
  } else if (onPath.length === 1) reasons.unshift(onPath[0]!.reason!);
  return reasons.length === 0 ? undefined : reasons.join("; ");
}

/** `describe` whose tests are skipped, naming the missing tools, unless every one is available. */
export function describeWith(...tools: readonly SystemTool[]): (name: string, body: () => void) => void {
  return (name, body) => describe(name, needs(...tools), body);
}

/** Skips the running test, naming the missing tools, unless every one is available (for a test that starts them itself). */
export function skipWithout(context: TestContext, ...tools: readonly SystemTool[]): void {
  const reason = missingReason(tools);
  if (reason !== undefined) context.skip(reason);
}

/** The tool's path, for spawning it; throws (naming the package) when it is missing. */
export function toolPath(tool: SystemTool): string {
  if (tool.path === undefined) throw new Error(tool.reason);
  return tool.path;
}
