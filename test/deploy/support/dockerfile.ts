import { cpSync, existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** One Dockerfile instruction, continuation lines joined. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** A build stage: its name and instructions. */
export interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** Parses a Dockerfile into stages (comments dropped, `\` continuations joined). */
export function parseDockerfile(text: string): { args: Instruction[]; stages: Stage[] } {
  const joined = text
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n/g, " ");
  const preamble: Instruction[] = [];
  const stages: Stage[] = [];
  for (const line of joined.split("\n")) {
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (match === null) continue;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!.trim();
    if (keyword === "FROM") {
      const [from, , name] = args.split(/\s+/);
      stages.push({ from: from!, name, instructions: [] });
    } else if (stages.length === 0) {
      preamble.push({ keyword, args });
    } else {
      stages[stages.length - 1]!.instructions.push({ keyword, args });
    }
  }
  return { args: preamble, stages };
}

/** A COPY instruction's flags, sources and destination (shell form). */
export function parseCopy(args: string): { from: string | undefined; sources: string[]; destination: string } {
  const words = args.split(/\s+/);
  const from = words.find((word) => word.startsWith("--from="))?.slice("--from=".length);
  const paths = words.filter((word) => !word.startsWith("--"));
  return { from, sources: paths.slice(0, -1), destination: paths[paths.length - 1]! };
}

/** `KEY=value KEY2=value2` (ENV) as a record. */
export function parseEnv(args: string): Record<string, string> {
  return Object.fromEntries(args.split(/\s+/).map((pair) => pair.split("=", 2) as [string, string]));
}

/** .dockerignore patterns as matchers: a path is excluded when it or one of its parent folders matches. */
export function dockerIgnoreMatcher(text: string): (path: string) => boolean {
  const patterns = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (patterns.some((pattern) => pattern.startsWith("!"))) throw new Error("exception patterns are not supported here");
  const regexes = patterns.map(
    (pattern) =>
      new RegExp(
        `^${pattern
          .replace(/[.+^${}()|[\]]/g, "\\$&")
          .replace(/\*\*\//g, "%DOUBLESTAR%")
          .replace(/\*/g, "[^/]*")
          .replace(/%DOUBLESTAR%/g, "(?:.*/)?")}$`,
      ),
  );
  return (path) => {
    const parts = path.split("/");
    for (let end = 1; end <= parts.length; end++) {
      const prefix = parts.slice(0, end).join("/");
      if (regexes.some((regex) => regex.test(prefix))) return true;
    }
    return false;
  };
}

/** Copies `source` (file or folder, relative to `contextDir`) to `target`, leaving out ignored paths. */
export function copyContextPath(
  contextDir: string,
  source: string,
  target: string,
  isIgnored: (path: string) => boolean,
): number {
  const absolute = join(contextDir, source);
  if (statSync(absolute).isFile()) {
    cpSync(absolute, target);
    return 1;
  }
  let files = 0;
  for (const entry of readdirSync(absolute, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(contextDir, join(entry.parentPath, entry.name));
    if (isIgnored(path)) continue;
    cpSync(join(contextDir, path), join(target, relative(source, path)));
    files++;
  }
  return files;
}

/**
 * What `npm ci --omit=dev` installs, from package-lock.json: every package not marked dev-only, that
 * exists for this platform (optional platform packages of other platforms are absent).
 */
export function productionPackagePaths(repoRoot: string): string[] {
  const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true && entry.devOptional !== true)
    .map(([path]) => path)
    .filter((path) => existsSync(join(repoRoot, path)))
    .sort();
}

/** Copies the production packages into `targetDir/node_modules`, each without its nested node_modules. */
export function copyProductionPackages(repoRoot: string, targetDir: string): number {
  const paths = productionPackagePaths(repoRoot);
  for (const path of paths) {
    const packageDir = join(repoRoot, path);
    cpSync(packageDir, join(targetDir, path), {
      recursive: true,
      filter: (source) => !relative(packageDir, source).split("/").includes("node_modules"),
    });
  }
  return paths.length;
}
