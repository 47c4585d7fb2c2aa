import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  generatedBlock,
  renderCliReference,
  renderCommandTable,
  renderConfigurationTable,
  replaceGeneratedBlock,
} from "./reference-docs.js";
import { COMMANDS } from "./commands/index.js";
import { runCli } from "./main.js";

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");
const STALE = "stale: run `npm run docs` and commit the result";

describe("generated docs match the code", () => {
  it("README.md's configuration table is the config schemas' (every key serve reads)", () => {
    const readme = read("README.md");
    expect(replaceGeneratedBlock(readme, "configuration", renderConfigurationTable()), STALE).toBe(readme);
    const table = renderConfigurationTable();
    expect(table).toContain(
      "| `--default-models` | `KEPLER_MODEL_DEFAULT_MODELS` | `true` | serve (all-in-one) | When MODEL_PATH holds no models, train the default pipeline from the bundled recording before the estimator starts (--no-default-models skips it). |",
    );
    expect(table).toContain("| `--estimator-port` | `KEPLER_MODEL_ESTIMATOR_PORT` | `8101` | estimator |");
    expect(table).toContain(
      "| `--model-path` | `MODEL_PATH` | `.kepler-model/models` | registry, trainer | Local model folder (kepler-model-db layout: &lt;pipeline>/&lt;source>/&lt;OutputType>/&lt;FeatureGroup>/&lt;model>). |",
    );
  });

  it("README.md's command table lists every command", () => {
    const readme = read("README.md");
    expect(replaceGeneratedBlock(readme, "commands", renderCommandTable()), STALE).toBe(readme);
    for (const name of ["serve", "query", "extract", "train", "isolate", "pipeline", "models", "estimate"]) {
      expect(renderCommandTable()).toContain(`| [\`${name}\`](docs/cli.md#kepler-model-${name}) |`);
    }
  });

  it("docs/cli.md is the commands' declarations", () => {
    expect(renderCliReference(), STALE).toBe(read("docs/cli.md"));
  });

  it("replaces only what is between the markers", () => {
    const { begin, end } = generatedBlock("x");
    expect(replaceGeneratedBlock(`a\n${begin}\nold\n${end}\nb`, "x", "new")).toBe(`a\n${begin}\nnew\n${end}\nb`);
    expect(() => replaceGeneratedBlock("no markers", "x", "new")).toThrow(`missing "${begin}"`);
  });
});

describe("--help everywhere", () => {
  async function help(argv: string[]): Promise<{ code: number; out: string }> {
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (data: Buffer) => {
      out += data.toString();
    });
    const code = await runCli(argv, { stdout, stderr: new PassThrough(), env: {} });
    return { code, out };
  }

  it("the top level lists every command", async () => {
    const { code, out } = await help(["--help"]);
    expect(code).toBe(0);
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (const command of COMMANDS)
      expect(out).toMatch(new RegExp(`^  ${literal(command.name)} +${literal(command.summary.slice(0, 20))}`, "m"));
  });

  for (const command of COMMANDS) {
    it(`kepler-model ${command.name} --help prints its usage and every flag, exit 0`, async () => {
      const { code, out } = await help([command.name, "--help"]);
      expect(code).toBe(0);
      expect(out.startsWith(`Usage: kepler-model ${command.name} ${command.usage}\n\n${command.summary}\n`)).toBe(true);
      for (const flag of [...command.flags, { name: "help" }]) expect(out).toMatch(new RegExp(`^  --${flag.name}( |$)`, "m"));
    });
  }
});
