import { createRequire } from "node:module";
import { pino } from "pino";

/** The root logger type (pino). Only main/kit code uses it; domain code gets a DomainLogger. */
export type Logger = pino.Logger;

/** The four-method logger domain code receives through its deps; it never imports pino. */
export interface DomainLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface LoggerOptions {
  /** pino level: trace, debug, info, warn, error, fatal, silent. */
  level: string;
  /** "json" for machines, "pretty" for a person at a terminal, "auto" picks pretty on a TTY. */
  format: "json" | "pretty" | "auto";
}

/** Creates the one root logger of a process. */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.format === "pretty" || (options.format === "auto" && process.stdout.isTTY === true);
  if (!pretty) return pino({ level: options.level, base: { pid: process.pid } });
  // The pretty transport runs in a worker thread that loads pino's own files: this pino comes from
  // node_modules (the command's bundle carries a copy of pino without those files).
  const installed = createRequire(import.meta.url)("pino") as typeof import("pino");
  return installed.pino({
    level: options.level,
    transport: { target: "pino-pretty", options: { colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname" } },
  });
}

/** A logger that drops everything: the default for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
