/** A JSDoc comment read into its description and tags. */
export interface JsDoc {
  description: string;
  params: Map<string, { type: string | null; description: string }>;
  returns: { type: string | null; description: string } | null;
  throws: string[];
  examples: string[];
  deprecated: string | null;
}

/**
 * Reads a `/** … *\/` comment's text (without the delimiters): description, `@param`,
 * `@returns`, `@throws`, `@example`, `@deprecated`.
 */
export function parseJsDoc(comment: string): JsDoc {
  const lines = comment
    .replace(/^\*/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""));
  const doc: JsDoc = { description: "", params: new Map(), returns: null, throws: [], examples: [], deprecated: null };
  const blocks: Array<{ tag: string; text: string }> = [{ tag: "", text: "" }];
  for (const line of lines) {
    const tag = /^@(\w+)\s?(.*)$/.exec(line.trim());
    if (tag) blocks.push({ tag: tag[1] as string, text: tag[2] ?? "" });
    else (blocks.at(-1) as { text: string }).text += `\n${line}`;
  }
  for (const { tag, text } of blocks) {
    const value = tag === "example" ? text.replace(/^\n+|\s+$/g, "") : text.trim().replace(/\s+/g, " ");
    if (tag === "") doc.description = text.trim().replace(/[ \t]+/g, " ");
    else if (tag === "param" || tag === "arg" || tag === "argument") {
      const parsed = /^(?:\{([^}]*)\}\s*)?\[?([\w$.]+)(?:=[^\]]*)?\]?\s*(?:-\s*)?(.*)$/.exec(value);
      if (parsed) doc.params.set(parsed[2] as string, { type: parsed[1] ?? null, description: parsed[3] ?? "" });
    } else if (tag === "returns" || tag === "return") {
      const parsed = /^(?:\{([^}]*)\}\s*)?(.*)$/.exec(value);
      doc.returns = { type: parsed?.[1] ?? null, description: parsed?.[2] ?? "" };
    } else if (tag === "throws" || tag === "exception") doc.throws.push(value);
    else if (tag === "example") doc.examples.push(value);
    else if (tag === "deprecated") doc.deprecated = value || "Deprecated";
  }
  return doc;
}
