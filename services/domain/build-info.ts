// Which kepler-model this is: the version from package.json (the one version shown by --version, the
// serve banner, /metrics, the registry's /ui and the models' metadata) and the git commit it was built
// from: baked into dist/revision.txt by `npm run build:cli`, read from the checkout when running the
// TypeScript sources, "unknown" when neither is there (e.g. a build outside git without a revision).
// Shared domain, so a trainer's domain can stamp its models; it locates files as services/kit/files/asset-url.ts does.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface BuildInfo {
  /** package.json's version, e.g. "0.1.0". */
  readonly version: string;
  /** The git commit (40 hex digits) or "unknown". */
  readonly revision: string;
}

let cached: BuildInfo | undefined;

/** This process's version and revision (read once). */
export function buildInfo(): BuildInfo {
  cached ??= { version: readVersion(), revision: readRevision() };
  return cached;
}

/** "kepler-model 0.1.0 (revision 1a2b3c4d5e6f)": what --version prints and the serve banner starts with. */
export function versionLine(): string {
  const { version, revision } = buildInfo();
  return `kepler-model ${version} (revision ${revision === "unknown" ? revision : revision.slice(0, 12)})`;
}

function readVersion(): string {
  // The bundle sits in dist/, beside package.json's folder in the checkout and in the image (/app).
  const url = new URL(runsFromSources() ? "../../package.json" : "../package.json", import.meta.url);
  const version: unknown = JSON.parse(readFileSync(url, "utf8")).version;
  if (typeof version !== "string" || version === "") throw new Error(`${fileURLToPath(url)}: no "version"`);
  return version;
}

const COMMIT = /^[0-9a-f]{40}$/;

// The TypeScript sources (services/domain/), or the bundle in dist/.
const runsFromSources = () => import.meta.url.endsWith(".ts");

function readRevision(): string {
  try {
    const text = runsFromSources()
      ? execFileSync("git", ["rev-parse", "HEAD"], {
          cwd: fileURLToPath(new URL("../../", import.meta.url)),
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        })
      : readFileSync(new URL("./revision.txt", import.meta.url), "utf8");
    const revision = text.trim();
    return COMMIT.test(revision) ? revision : "unknown";
  } catch {
    return "unknown";
  }
}
