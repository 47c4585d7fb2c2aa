// What every model-browser page shares: escaping, the page frame (no script: the pages are plain HTML
// with inline styles, images and links) and lenient JSON reading.
import { versionLine } from "../../domain/build-info.js";

export interface BrowserPage {
  readonly contentType: string;
  readonly body: string | Buffer;
}

export const escape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

export { significant } from "../../domain/significant-digits.js";

export const pipelineHref = (name: string) => `/ui/pipeline/${encodeURIComponent(name)}`;

export function parseObject(text: string | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text ?? "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A metadata value as text, "-" when absent. */
export const field = (metadata: Record<string, unknown>, key: string) => escape(String(metadata[key] ?? "-"));

export function htmlPage(title: string, body: string): BrowserPage {
  return {
    contentType: "text/html; charset=utf-8",
    body: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<link rel="icon" href="data:,">
<style>
body { font-family: "Liberation Sans", "DejaVu Sans", sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.8em 0 1.6em; } th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; } tr.best td, td.better { background: #fff6d5; }
figure { margin: 1em 0 2em; } figcaption { font-weight: bold; margin-bottom: 0.3em; } figure img { max-width: 100%; }
.empty { background: #f3f6fa; border: 1px solid #c9d6e6; padding: 0.8em 1.2em; max-width: 60em; }
nav.compare a { margin-right: 0.8em; } footer.version { margin-top: 3em; color: #777; font-size: 0.9em; }
</style></head>
<body><p><a href="/ui">All pipelines</a></p>
${body}
<footer class="version">${escape(versionLine())}</footer>
</body></html>
`,
  };
}
