// `npm run docs`: rewrites the generated tables in README.md and docs/cli.md.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderCliReference, renderCommandTable, renderConfigurationTable, replaceGeneratedBlock } from "./reference-docs.js";

const root = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

const readme = await readFile(root("README.md"), "utf8");
const withCommands = replaceGeneratedBlock(readme, "commands", renderCommandTable());
await writeFile(root("README.md"), replaceGeneratedBlock(withCommands, "configuration", renderConfigurationTable()));
await writeFile(root("docs/cli.md"), renderCliReference());
process.stdout.write("wrote README.md (command and configuration tables) and docs/cli.md\n");
