import type { Logger } from "../observe/logger.js";

/**
 * Resolves after SIGTERM or SIGINT once `close` has finished (stop accepting, let in-flight calls
 * finish), so the caller can exit 0. A second signal while closing exits at once with code 1.
 */
export function waitForShutdownSignal(close: () => Promise<void>, logger: Logger): Promise<void> {
  return new Promise((resolve, reject) => {
    let closing = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (closing) {
        logger.warn({ signal }, "second signal while shutting down; exiting now");
        process.exit(1);
      }
      closing = true;
      logger.info({ signal }, "shutting down");
      close().then(() => {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
        resolve();
      }, reject);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
