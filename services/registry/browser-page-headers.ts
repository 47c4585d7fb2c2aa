// Headers of every /ui answer (the model browser's pages and a pipeline's stored report files). The
// pages need no script, and a stored report came from a zip someone imported: no script may run in
// them, whatever they contain. Inline styles and our own images only, no framing, and no content
// sniffing (a file is only what its Content-Type says).
export const BROWSER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};
