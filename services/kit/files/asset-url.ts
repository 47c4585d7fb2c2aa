// Files the code reads at run time (the descriptor set, the bundled recording, worker modules) sit beside
// the TypeScript sources, or beside the bundle in dist/ where `npm run build:cli` copies them.

/** Whether the calling module (`from`: its import.meta.url) runs from the TypeScript sources. */
export function runsFromSources(from: string): boolean {
  return from.endsWith(".ts");
}

/** `sourcePath` relative to the calling module in the sources, `./<bundleName>` in the bundle. */
export function assetUrl(from: string, sourcePath: string, bundleName: string): URL {
  return new URL(runsFromSources(from) ? sourcePath : `./${bundleName}`, from);
}
