// The registry of trainer definitions: the one place that says which trainers exist. The trainer service,
// ListTrainers, the CLI's defaults and the registry's weight-capable check all read it, so adding a
// trainer is one registerTrainer call (no class lookup by building import paths, no fixed name enum).
import { InvalidInputError } from "../../domain/errors.js";
import { BUILTIN_TRAINERS } from "./builtin-trainers.js";
import type { TrainerImplementation } from "./trainer.js";

// Model names are `<trainer>_<node_type>` and archive paths end in the model name: no separators.
const TRAINER_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

// Insertion order is ListTrainers' order: the built-ins (reference order), then registered trainers.
const registered = new Map<string, TrainerImplementation>();
// Where a registered (non-built-in) trainer is defined, so a fit worker thread can import it too.
const modules = new Map<string, string>();

/** Where a trainer's definition module is, for threads that have not loaded it. */
export interface TrainerRegistration {
  /** The module that defines and registers the trainer (pass `import.meta.url`); built-ins need none. */
  module?: string | URL;
}

/**
 * Adds a trainer to every place trainers are listed or resolved. Throws on a malformed name (letters and
 * digits, starting with a letter) or a name already registered by a different definition; registering the
 * same definition again only records `module` (a module imported twice). Without `module`, fits of this trainer on
 * worker threads fail with "unknown trainer" (workers load the built-ins only).
 */
export function registerTrainer(trainer: TrainerImplementation, registration: TrainerRegistration = {}): void {
  if (!TRAINER_NAME.test(trainer.name)) {
    throw new InvalidInputError("trainer.name", `"${trainer.name}" must be letters and digits, starting with a letter`);
  }
  const existing = registered.get(trainer.name);
  if (existing === trainer) {
    if (registration.module !== undefined) modules.set(trainer.name, new URL(registration.module).href);
    return;
  }
  if (existing !== undefined) throw new InvalidInputError("trainer.name", `trainer ${trainer.name} is already registered`);
  if (trainer.weightCapable && trainer.toWeights === undefined) {
    throw new InvalidInputError("trainer.toWeights", `${trainer.name} is weight-capable, so it must define toWeights`);
  }
  registered.set(trainer.name, trainer);
  if (registration.module !== undefined) modules.set(trainer.name, new URL(registration.module).href);
}

/** The module a fit worker imports to get `name` registered (undefined for built-ins). */
export function trainerModuleOf(name: string): string | undefined {
  return modules.get(name);
}

for (const trainer of BUILTIN_TRAINERS) registerTrainer(trainer);

/** The registered trainers: built-ins in the reference's default order, then the others as registered. */
export function listTrainers(): TrainerImplementation[] {
  return [...registered.values()];
}

/** The trainer registered under `name` (exact, case-sensitive), if any. */
export function findTrainer(name: string): TrainerImplementation | undefined {
  return registered.get(name);
}

function knownNames(): string {
  return listTrainers()
    .map((t) => t.name)
    .join(", ");
}

/**
 * Resolves requested names (exact, case-sensitive: the reference's substring matching is a bug).
 * Unknown names are INVALID_ARGUMENT listing the registered ones. Duplicates are dropped.
 */
export function resolveTrainers(names: readonly string[], field = "trainer_names"): TrainerImplementation[] {
  if (names.length === 0) throw new InvalidInputError(field, `name at least one trainer (known: ${knownNames()})`);
  const resolved: TrainerImplementation[] = [];
  names.forEach((name, index) => {
    const trainer = registered.get(name);
    if (trainer === undefined)
      throw new InvalidInputError(`${field}[${index}]`, `unknown trainer "${name}" (known: ${knownNames()})`);
    if (!resolved.includes(trainer)) resolved.push(trainer);
  });
  return resolved;
}
