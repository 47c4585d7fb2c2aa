// --trainer-modules: the user's trainer files, imported before the trainer serves. Each must register at
// least one trainer; its URL is recorded for the trainers it registered, so fit worker threads import it too.
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidInputError } from "../domain/errors.js";
import { listTrainers, registerTrainer } from "./domain/trainer-registry.js";

const FIELD = "trainer_modules";
// Modules already imported (a second trainer in one process, e.g. tests, lists the same ones).
const loaded = new Set<string>();

function moduleUrl(entry: string): URL {
  if (entry.startsWith("file:")) return new URL(entry);
  return pathToFileURL(isAbsolute(entry) ? entry : resolve(entry));
}

/** Imports each module; throws INVALID_ARGUMENT naming the entry when it fails or registers nothing. */
export async function loadTrainerModules(entries: readonly string[]): Promise<void> {
  for (const [index, entry] of entries.entries()) {
    const url = moduleUrl(entry);
    if (loaded.has(url.href)) continue;
    const before = new Set(listTrainers());
    try {
      await import(url.href);
    } catch (error) {
      throw new InvalidInputError(
        `${FIELD}[${index}]`,
        `cannot import ${entry}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const added = listTrainers().filter((t) => !before.has(t));
    if (added.length === 0)
      throw new InvalidInputError(`${FIELD}[${index}]`, `${entry} registered no trainer (call registerTrainer)`);
    for (const trainer of added) registerTrainer(trainer, { module: url });
    loaded.add(url.href);
  }
}
