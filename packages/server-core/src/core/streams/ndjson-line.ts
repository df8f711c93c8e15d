/**
 * Frames one NDJSON line: the one NDJSON framer every Conduit stream uses (the event-stream
 * encoding, its keep-alive, the streaming writers). `JSON.stringify` escapes every line break
 * inside strings, so the value always takes exactly one line; `undefined` (which JSON cannot
 * express) becomes `null` rather than the invalid line `undefined`.
 *
 * @example
 * formatNdjsonLine({ type: "keep-alive" }); // '{"type":"keep-alive"}\n'
 * formatNdjsonLine("a\nb"); // '"a\\nb"\n'
 */
export function formatNdjsonLine(value: unknown): string {
  return `${JSON.stringify(value) ?? "null"}\n`;
}
