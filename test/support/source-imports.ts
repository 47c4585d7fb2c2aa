// The project's TypeScript files and the imports between them, read from the source text, for the
// architecture tests (test/architecture/). Relative imports are resolved to files; package imports are
// kept as written. `import type` counts like any import: a reader follows it the same way.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

/** One import of one file. */
export interface SourceImport {
  /** As written in the source. */
  readonly specifier: string;
  /** Repository-relative path of the imported file; undefined for a package import. */
  readonly target?: string;
}

/** One .ts file and what it imports. */
export interface SourceFile {
  /** Repository-relative path with forward slashes. */
  readonly path: string;
  readonly lineCount: number;
  readonly imports: readonly SourceImport[];
}

export const REPOSITORY_ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), "../.."));

// Static imports and re-exports (`import x from`, `export * from`, `import "x"`) and dynamic `import("x")`.
const IMPORT_PATTERN =
  /(?:^|[\s;])(?:import|export)\s[^;"'`]*?from\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

// Block comments and whole-line comments only: `//` inside a string (a URL) must stay.
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

function resolveRelative(fromPath: string, specifier: string): string {
  const joined = normalize(join(dirname(fromPath), specifier)).replaceAll("\\", "/");
  const candidates = joined.endsWith(".js")
    ? [joined.replace(/\.js$/, ".ts"), joined]
    : [joined, `${joined}.ts`, `${joined}/index.ts`];
  return (
    candidates.find(
      (candidate) => existsSync(join(REPOSITORY_ROOT, candidate)) && statSync(join(REPOSITORY_ROOT, candidate)).isFile(),
    ) ?? candidates[0]!
  );
}

/** Reads one file's imports. */
export function readSourceFile(path: string): SourceFile {
  const text = readFileSync(join(REPOSITORY_ROOT, path), "utf8");
  const imports: SourceImport[] = [];
  for (const match of withoutComments(text).matchAll(IMPORT_PATTERN)) {
    const specifier = (match[1] ?? match[2] ?? match[3])!;
    imports.push(specifier.startsWith(".") ? { specifier, target: resolveRelative(path, specifier) } : { specifier });
  }
  const lineCount = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  return { path, lineCount, imports };
}

/** Every .ts file under `roots` (repository-relative folders), skipping the folders named in `skipped`. */
export function listSourceFiles(roots: readonly string[], skipped: readonly string[] = []): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(REPOSITORY_ROOT, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !skipped.includes(path)) walk(path);
      } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(path);
    }
  };
  for (const root of roots) walk(root);
  return found.sort();
}

/** The import cycles among `files` (strongly connected groups of two or more, or a file importing itself). */
export function findImportCycles(files: readonly SourceFile[]): string[][] {
  const edges = new Map(
    files.map((file) => [file.path, file.imports.flatMap((entry) => (entry.target === undefined ? [] : [entry.target]))]),
  );
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || edges.get(node)!.includes(node)) cycles.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
