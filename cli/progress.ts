// Progress of long CLI work on stderr: a bar redrawn in place on a terminal, one plain line per event
// otherwise (logs and tests read those lines). Used by `pipeline run` and `report`.

/** One step of progress (the fields of the proto ProgressEvent). */
export interface ProgressStep {
  readonly stage: string;
  readonly done: number;
  /** 0 when unknown. */
  readonly total: number;
  readonly subject: string;
  readonly message: string;
}

/** A printer over `stream`; call end() before writing anything else to the same terminal line. */
export function progressPrinter(stream: NodeJS.WritableStream) {
  const tty = (stream as { isTTY?: boolean }).isTTY === true;
  const width = 24;
  return {
    show(event: ProgressStep) {
      const count = event.total > 0 ? `${event.done}/${event.total}` : `${event.done}`;
      if (!tty) {
        stream.write(`${event.stage} ${count} ${event.subject}: ${event.message}\n`);
        return;
      }
      const filled = event.total > 0 ? Math.min(width, Math.round((width * event.done) / event.total)) : 0;
      stream.write(`\r\x1b[K[${"#".repeat(filled)}${".".repeat(width - filled)}] ${event.stage} ${count} ${event.subject}`);
    },
    end() {
      if (tty) stream.write("\r\x1b[K");
    },
  };
}
