// One pipeline run (reference Pipeline.process for every source x feature group, offline trainer §9.1):
// read the data, then per source and feature group extract the node table and train the AbsPower trainers,
// extract the container table, isolate it and train the DynPower trainers, each trainer in its own Train
// call so one failing trainer loses no other model; finally write the pipeline's metadata.json,
// train_arguments.json, the trained-on tables (preprocessed_data/) and the idle profiles (profile/).
import type { DataTable } from "../../domain/data-table.js";
import { tableToCsv } from "../../domain/table-csv.js";
import type { EnergySource } from "../../domain/energy-sources.js";
import { type FeatureGroupName, featuresOf } from "../../domain/feature-groups.js";
import { failedResult, type TrainTarget } from "./failed-result.js";
import { absTablePath, dynTablePath, TRAIN_ARGUMENTS_FILE, trainArguments } from "./pipeline-files.js";
import { assignNodeType, type NodeTypeAssignment } from "./node-type-assignment.js";
import { createOrderedLanes, runWindowed } from "./ordered-lanes.js";
import { createPipelineMetadata } from "./pipeline-metadata.js";
import { assertRunOptions, type PipelineData, type PipelineRunOptions } from "./pipeline-options.js";
import type {
  IdleProfileSet,
  IsolatorName,
  PipelineFileContent,
  PipelinePeers,
  PipelineProgress,
  PipelineTrainerResult,
} from "./pipeline-peers.js";
import { resolveEnergySources, resolveFeatureGroups } from "./resolve-targets.js";
import { mergedProfileFiles, PROFILE_FOLDER, storedProfileSet } from "./stored-profiles.js";

export interface RunPipelineDeps {
  readonly peers: PipelinePeers;
  readonly onProgress?: (event: PipelineProgress) => void;
  readonly onResult?: (result: PipelineTrainerResult) => void;
  readonly nowSeconds?: () => number;
  /** Stops the run at the next step (a cancelled RPC, a stopped online pipeline). */
  readonly signal?: AbortSignal;
}

/** Online runs: train only when the data's newest sample is newer than this (Unix seconds). */
export interface RunGate {
  readonly newerThanSeconds: number;
}

export interface PipelineRunSummary {
  readonly pipelineName: string;
  /** The metadata.json written; empty when no model was trained (nothing written). */
  readonly metadataJson: string;
  readonly succeededCount: number;
  readonly failedCount: number;
  readonly nodeType: NodeTypeAssignment;
  readonly notices: readonly string[];
  /** Unix seconds of the newest row of the data; undefined when the data has no rows. */
  readonly newestSampleSeconds?: number;
  /** True when a gated run found no new data and trained nothing. */
  readonly skipped: boolean;
}

/**
 * Features the trainer must use instead of the group's fixed list: the third-party metrics for
 * ThirdParty, and WorkloadOnly plus them (the reference's update_thirdparty_metrics redefines WorkloadOnly
 * so); empty otherwise.
 */
function modelFeatureNames(group: FeatureGroupName, thirdPartyMetricNames: readonly string[]): readonly string[] {
  if (thirdPartyMetricNames.length === 0 || (group !== "ThirdParty" && group !== "WorkloadOnly")) return [];
  return featuresOf(group, thirdPartyMetricNames);
}

/**
 * Unix seconds of the newest row that holds a new sample: the last row differing from the row before it.
 * Prometheus repeats a series' last sample at later grid points (up to its lookback delta), which the
 * extraction turns into identical all-zero-rate rows; those trailing rows hold no new data. Undefined
 * when the table has no rows.
 */
export function newestSampleRowSeconds(table: DataTable): number | undefined {
  const { rowCount, columnNames, values, timestamps } = table;
  if (rowCount === 0) return undefined;
  for (let row = rowCount - 1; row > 0; row--) {
    for (let column = 0; column < columnNames.length; column++) {
      const offset = column * rowCount + row;
      if (!Object.is(values[offset], values[offset - 1])) return timestamps[row];
    }
  }
  return timestamps[0];
}

/** Tables worked on at once: enough to overlap extraction, fits and publishing; few enough to bound memory. */
const TABLES_SIDE_BY_SIDE = 4;

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Runs the pipeline once. Request errors throw before any model is trained; later failures are reported. */
export async function runPipeline(
  options: PipelineRunOptions,
  deps: RunPipelineDeps,
  gate?: RunGate,
): Promise<PipelineRunSummary> {
  assertRunOptions(options);
  const { peers, signal } = deps;
  const now = deps.nowSeconds ?? (() => Date.now() / 1000);
  const notices: string[] = [];
  const emit = (stage: string, subject: string, done: number, total: number, message: string) =>
    deps.onProgress?.({ stage, subject, done, total, message });

  const load = async (data: PipelineData, what: string): Promise<Uint8Array> => {
    if (data.kind === "inline") return data.response;
    emit("query", what, 0, 1, `reading ${data.window.baseUrl}`);
    const bytes = await peers.queryPrometheus(data.window, signal);
    emit("query", what, 1, 1, `read ${bytes.byteLength} bytes`);
    return bytes;
  };
  const response = await load(options.data, "workload");
  const idleResponse = options.idleData === undefined ? undefined : await load(options.idleData, "idle");
  const extractOptions = { useVmMetrics: options.useVmMetrics, thirdPartyMetricNames: options.thirdPartyMetricNames };
  const overview = await peers.describeData(response, extractOptions, signal);
  const sources = resolveEnergySources(options.energySources, overview, "options.energy_sources");
  const groups = resolveFeatureGroups(options.featureGroups, overview, "options.feature_groups");
  const nodeType = await assignNodeType(options, peers);
  const fixedNodeType = nodeType.nodeType >= 0 ? nodeType.nodeType : undefined;

  // Extractions are cached: the online probe's table is reused by the run.
  const extracted = new Map<string, Promise<DataTable>>();
  const extract = (energySource: EnergySource, featureGroup: FeatureGroupName, level: "node" | "container") => {
    const key = `${energySource}/${featureGroup}/${level}`;
    let table = extracted.get(key);
    if (table === undefined) {
      table = peers.extract(
        response,
        { energySource, featureGroup, level, extractor: options.extractor, nodeType: fixedNodeType, ...extractOptions },
        signal,
      );
      extracted.set(key, table);
    }
    return table;
  };

  // The newest sample, from the first table the run needs anyway (an online run trains only on new data).
  const firstLevel = options.absTrainerNames.length > 0 ? "node" : "container";
  const probe = await extract(sources[0]!, groups[0]!, firstLevel).catch((error: unknown) => {
    if (gate !== undefined || signal?.aborted) throw error;
    return undefined;
  });
  const newestSampleSeconds = probe === undefined ? undefined : newestSampleRowSeconds(probe);
  const summaryBase = { pipelineName: options.pipelineName, nodeType, newestSampleSeconds };
  if (gate !== undefined && (newestSampleSeconds === undefined || newestSampleSeconds <= gate.newerThanSeconds)) {
    return {
      ...summaryBase,
      metadataJson: "",
      succeededCount: 0,
      failedCount: 0,
      notices: ["no new data since the last run: nothing trained"],
      skipped: true,
    };
  }

  // The profile isolator (also the default: profile where one exists for the node type, else min) uses
  // the profiles built from this run's idle data, kept in the pipeline folder, or those an earlier run kept.
  let idleProfiles: IdleProfileSet | undefined;
  const profileFiles: PipelineFileContent[] = [];
  if (options.isolator === "profile" && options.dynTrainerNames.length > 0) {
    const stored = await peers.readStoredProfiles(options.pipelineName);
    if (idleResponse !== undefined) {
      emit("profile", "idle", 0, 1, "building idle profiles");
      idleProfiles = await peers.buildIdleProfiles(
        idleResponse,
        { energySources: sources, nodeType: fixedNodeType ?? 0, useVmMetrics: options.useVmMetrics },
        signal,
      );
      profileFiles.push(...mergedProfileFiles(stored, idleProfiles, fixedNodeType ?? 0));
      emit("profile", "idle", 1, 1, `${idleProfiles.profiles.length} idle profiles`);
    } else {
      // Without any profile the isolator says per table that it used min.
      idleProfiles = storedProfileSet(stored);
      if (idleProfiles !== undefined)
        notices.push(
          `isolating with the ${idleProfiles.profiles.length} idle profile(s) stored in ${PROFILE_FOLDER}/ (node types without one use min)`,
        );
    }
  } else if (idleResponse !== undefined) {
    notices.push(`idle data was ignored: only the profile isolator uses it (isolator: ${options.isolator})`);
  }

  const pairs = sources.flatMap((energySource) => groups.map((featureGroup) => ({ energySource, featureGroup })));
  const hasAbs = options.absTrainerNames.length > 0;
  const hasDyn = options.dynTrainerNames.length > 0;
  const counters = {
    extract: { done: 0, total: pairs.length * (Number(hasAbs) + Number(hasDyn)) },
    isolate: { done: 0, total: hasDyn ? pairs.length : 0 },
    train: { done: 0, total: pairs.length * (options.absTrainerNames.length + options.dynTrainerNames.length) },
  };
  let succeededCount = 0;
  let failedCount = 0;
  // The isolator each (source, feature group) actually got, for metadata.json.
  const isolatorsUsed: Record<string, IsolatorName> = {};
  // The tables the trainers got, written to preprocessed_data/ with metadata.json.
  const preprocessed: PipelineFileContent[] = [];

  const trained = { AbsPower: new Set<string>(), DynPower: new Set<string>() };
  // Tables are worked on side by side (extractions, isolations and Train calls overlap); every effect a
  // table has on the run (progress, results, counters, notices, files) goes through `say`, which replays
  // them in table order, so the run reports exactly what running the tables one by one would.
  type Say = (effect: () => void) => void;
  const record = (result: PipelineTrainerResult) => {
    if (result.succeeded) {
      succeededCount++;
      trained[result.outputType].add(result.trainerName);
    } else failedCount++;
    deps.onResult?.(result);
  };
  const failAll = (trainers: readonly string[], target: TrainTarget, reason: string) => {
    for (const trainerName of trainers) {
      record(failedResult(trainerName, target, fixedNodeType, reason));
      counters.train.done++;
    }
    emit(
      "train",
      `${target.energySource}/${target.featureGroup}/${target.outputType}`,
      counters.train.done,
      counters.train.total,
      `failed: ${reason}`,
    );
  };
  // All trainers of a table in one Train call: the trainer service fits them side by side on its worker
  // threads and reports (and publishes) in trainer order, so progress reads as before.
  const trainAll = async (say: Say, table: DataTable, trainers: readonly string[], target: TrainTarget) => {
    if (trainers.length === 0) return;
    signal?.throwIfAborted();
    const subjectOf = (trainerName: string) =>
      `${target.energySource}/${target.featureGroup}/${target.outputType}/${trainerName}`;
    // Progress as if the trainers ran one after the other (results come in trainer order): "training" for
    // the next one once the one before is done.
    const announced = new Set<string>();
    const announceNext = () => {
      const next = trainers.find((name) => !done.has(name));
      if (next === undefined || announced.has(next)) return;
      announced.add(next);
      say(() => emit("train", subjectOf(next), counters.train.done, counters.train.total, `training ${next}`));
    };
    // A trainer counts as done at its first result (one per node type follows in node type order).
    const done = new Set<string>();
    const finished = (trainerName: string, failures: readonly string[]) => {
      done.add(trainerName);
      const message = failures.length === 0 ? `trained ${trainerName}` : `failed: ${failures.join("; ")}`;
      say(() => {
        counters.train.done++;
        emit("train", subjectOf(trainerName), counters.train.done, counters.train.total, message);
      });
      announceNext();
    };
    announceNext();
    const onResult = (result: PipelineTrainerResult) => {
      say(() => {
        record(result);
        if (result.published) {
          const model = `${target.energySource}/${target.featureGroup}/${target.outputType}/${result.modelName}`;
          emit("publish", model, counters.train.done, counters.train.total, `published ${result.modelName}`);
        }
      });
      if (!done.has(result.trainerName)) finished(result.trainerName, result.succeeded ? [] : [result.failureReason]);
    };
    const train = (trainerNames: readonly string[]) =>
      peers.train(
        table,
        {
          ...target,
          pipelineName: options.pipelineName,
          trainerNames,
          nodeType: fixedNodeType,
          machineSpec: options.machine?.spec,
          seed: options.seed,
          featureNames: modelFeatureNames(target.featureGroup, options.thirdPartyMetricNames),
          continueFromCheckpoint: options.continueFromCheckpoint === true,
        },
        onResult,
        signal,
      );
    // Trainers a call did not get to fail with its reason (or none given).
    const failRest = (trainerNames: readonly string[], reason: string) => {
      for (const trainerName of trainerNames) {
        if (done.has(trainerName)) continue;
        const failed = failedResult(trainerName, target, fixedNodeType, reason);
        say(() => record(failed));
        finished(trainerName, [reason]);
      }
    };
    const noResult = "no result from the trainer service";
    try {
      await train(trainers);
      failRest(trainers, noResult);
    } catch (error) {
      if (signal?.aborted) throw error;
      if (trainers.length === 1) {
        failRest(trainers, describeError(error));
        return;
      }
      // The call failed as a whole (e.g. the trainer service refuses one trainer's name): each trainer it
      // did not finish gets a call of its own, so only the one at fault fails.
      for (const trainerName of trainers.filter((name) => !done.has(name))) {
        signal?.throwIfAborted();
        try {
          await train([trainerName]);
          failRest([trainerName], noResult);
        } catch (single) {
          if (signal?.aborted) throw single;
          failRest([trainerName], describeError(single));
        }
      }
    }
  };

  // A step that fails for one (source, feature group) fails its trainers only; a cancelled run stops.
  const attempt = async <T>(step: () => Promise<T>): Promise<T | Error> => {
    try {
      return await step();
    } catch (error) {
      if (signal?.aborted) throw error;
      return error instanceof Error ? error : new Error(String(error));
    }
  };

  const absTable = async (say: Say, energySource: EnergySource, featureGroup: FeatureGroupName) => {
    const subject = `${energySource}/${featureGroup}`;
    const target: TrainTarget = { energySource, featureGroup, outputType: "AbsPower" };
    signal?.throwIfAborted();
    say(() => emit("extract", `${subject}/node`, counters.extract.done, counters.extract.total, "extracting the node table"));
    const table = await attempt(() => extract(energySource, featureGroup, "node"));
    if (table instanceof Error) {
      say(() => {
        counters.extract.done++;
        notices.push(`${subject}: no AbsPower table: ${table.message}`);
        failAll(options.absTrainerNames, target, `extract: ${table.message}`);
      });
      return;
    }
    const text = tableToCsv(table);
    say(() => {
      counters.extract.done++;
      emit("extract", `${subject}/node`, counters.extract.done, counters.extract.total, `${table.rowCount} rows`);
      preprocessed.push({ path: absTablePath(options.extractor, energySource, featureGroup), text });
    });
    await trainAll(say, table, options.absTrainerNames, target);
  };

  const dynTable = async (say: Say, energySource: EnergySource, featureGroup: FeatureGroupName) => {
    const subject = `${energySource}/${featureGroup}`;
    const target: TrainTarget = { energySource, featureGroup, outputType: "DynPower" };
    signal?.throwIfAborted();
    say(() =>
      emit("extract", `${subject}/container`, counters.extract.done, counters.extract.total, "extracting the container table"),
    );
    const containers = await attempt(() => extract(energySource, featureGroup, "container"));
    if (containers instanceof Error) {
      say(() => {
        counters.extract.done++;
        notices.push(`${subject}: no DynPower table: ${containers.message}`);
        failAll(options.dynTrainerNames, target, `extract: ${containers.message}`);
      });
      return;
    }
    say(() => {
      counters.extract.done++;
      emit("extract", `${subject}/container`, counters.extract.done, counters.extract.total, `${containers.rowCount} rows`);
      emit("isolate", subject, counters.isolate.done, counters.isolate.total, `isolating with ${options.isolator}`);
    });
    const isolated = await attempt(() =>
      peers.isolate(
        containers,
        {
          isolator: options.isolator,
          energySource,
          nodeType: fixedNodeType,
          targetHints: options.targetHints,
          backgroundHints: options.backgroundHints,
          absPipelineName: options.absPipelineName,
          idleProfiles,
        },
        signal,
      ),
    );
    if (isolated instanceof Error) {
      say(() => {
        counters.isolate.done++;
        notices.push(`${subject}: no DynPower table: ${isolated.message}`);
        failAll(options.dynTrainerNames, target, `isolate: ${isolated.message}`);
      });
      return;
    }
    const text = tableToCsv(isolated.table);
    say(() => {
      counters.isolate.done++;
      for (const notice of isolated.notices) notices.push(`${subject}: ${notice}`);
      isolatorsUsed[subject] = isolated.isolator;
      emit(
        "isolate",
        subject,
        counters.isolate.done,
        counters.isolate.total,
        `${isolated.table.rowCount} rows (${isolated.isolator})`,
      );
      preprocessed.push({ path: dynTablePath(options.extractor, options.isolator, energySource, featureGroup), text });
    });
    await trainAll(say, isolated.table, options.dynTrainerNames, target);
  };

  // Per (source, feature group): the AbsPower table, then the DynPower one. The trainer isolator may use
  // this run's own AbsPower models (abs_pipeline_name naming this pipeline), so it waits for them.
  const tables: Array<(say: Say) => Promise<void>> = [];
  for (const { energySource, featureGroup } of pairs) {
    let absDone: Promise<void> = Promise.resolve();
    if (hasAbs) {
      let markAbsDone = () => {};
      absDone = new Promise((resolve) => (markAbsDone = resolve));
      tables.push((say) => absTable(say, energySource, featureGroup).finally(markAbsDone));
    }
    if (hasDyn) {
      const waitFor = options.isolator === "trainer" ? absDone : Promise.resolve();
      tables.push(async (say) => {
        await waitFor;
        await dynTable(say, energySource, featureGroup);
      });
    }
  }
  const lanes = createOrderedLanes(tables.length);
  await runWindowed(
    tables.map((table, lane) => () => table((effect) => lanes.report(lane, effect)).finally(() => lanes.finish(lane))),
    TABLES_SIDE_BY_SIDE,
  );

  let metadataJson = "";
  if (succeededCount > 0) {
    const previousText = await peers.readPipelineMetadata(options.pipelineName);
    metadataJson = createPipelineMetadata({
      pipelineName: options.pipelineName,
      isolator: options.isolator,
      isolatorsUsed,
      extractor: options.extractor,
      // Trainers that produced a model in this run, in the requested order.
      absTrainerNames: options.absTrainerNames.filter((name) => trained.AbsPower.has(name)),
      dynTrainerNames: options.dynTrainerNames.filter((name) => trained.DynPower.has(name)),
      useVmMetrics: options.useVmMetrics,
      nowSeconds: now(),
      previousText,
    });
    const trainArgumentsText = JSON.stringify(trainArguments(options));
    await peers.writePipelineMetadata(options.pipelineName, metadataJson, [
      { path: TRAIN_ARGUMENTS_FILE, text: trainArgumentsText },
      ...profileFiles,
      ...preprocessed,
    ]);
    emit("metadata", options.pipelineName, 1, 1, `wrote metadata.json, ${TRAIN_ARGUMENTS_FILE}, ${preprocessed.length} tables`);
  } else {
    notices.push("no model was trained: metadata.json was not written");
  }
  return { ...summaryBase, metadataJson, succeededCount, failedCount, notices, skipped: false };
}
