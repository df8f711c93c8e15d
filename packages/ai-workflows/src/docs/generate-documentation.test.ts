import { describe, expect, it } from "vitest";
import { parsesCleanly } from "../code/parse-code.js";
import { generateDocumentationRequestSchema } from "../schemas/generate-documentation-schema.js";
import { generateDocumentation } from "./generate-documentation.js";

const CODE = `import { readFile } from "node:fs/promises";

/** Options of {@link loadConfig}. */
export interface LoadOptions {
  strict?: boolean;
}

export const DEFAULT_PATH = "./config.json";

/**
 * Loads and parses a JSON config file.
 * @param path - Where the file is
 * @param options - How strictly to read it
 * @returns The parsed object
 * @throws {SyntaxError} When the file is not JSON
 * @example
 * const config = await loadConfig("./app.json");
 */
export async function loadConfig(path: string = DEFAULT_PATH, options: LoadOptions = {}): Promise<Record<string, unknown>> {
  const text = await readFile(path, "utf8");
  if (options.strict && text.trim() === "") throw new Error("empty");
  return JSON.parse(text);
}

export class Cache<T> {
  private entries = new Map<string, T>();
  get(key: string): T | undefined { return this.entries.get(key); }
  set(key: string, value: T): void { this.entries.set(key, value); }
}

function internalHelper(x) { return x; }
`;

const document = (overrides: Record<string, unknown>) =>
  generateDocumentation(
    generateDocumentationRequestSchema.parse({ codeBase: CODE, outputFormat: "markdown", includeExamples: true, ...overrides }),
  );

describe("generate-documentation", () => {
  it("reads the real signatures, types and JSDoc", () => {
    const result = document({ outputFormat: "markdown" });
    expect(result.apiReference.map((entry) => `${entry.kind}:${entry.name}`)).toEqual([
      "interface:LoadOptions",
      "constant:DEFAULT_PATH",
      "function:loadConfig",
      "class:Cache",
      "method:Cache.get",
      "method:Cache.set",
      "function:internalHelper",
    ]);
    const load = result.apiReference.find((entry) => entry.name === "loadConfig");
    expect(load).toMatchObject({
      signature: "async loadConfig(path: string = DEFAULT_PATH, options: LoadOptions = {}): Promise<Record<string, unknown>>",
      description: "Loads and parses a JSON config file.",
      returns: { type: "Promise<Record<string, unknown>>", description: "The parsed object" },
      throws: ["{SyntaxError} When the file is not JSON"],
      examples: ['const config = await loadConfig("./app.json");'],
      documented: true,
      exported: true,
    });
    expect(load?.params[0]).toMatchObject({
      name: "path",
      type: "string",
      optional: true,
      defaultValue: "DEFAULT_PATH",
      description: "Where the file is",
    });
    expect(result.coverage).toEqual({ documented: 2, total: 7 });
    expect(result.document).toContain("### loadConfig");
    expect(result.document).toContain("| `path` (optional) | `string` | Where the file is Default: `DEFAULT_PATH`. |");
    expect(result.userGuides.map((guide) => guide.title)).toEqual([
      "Getting started",
      "Working with Cache",
      "Error handling",
      "Asynchronous calls",
    ]);
  });

  it("adds JSDoc to the undocumented entries in jsdoc format, and the code still parses", () => {
    const result = document({ outputFormat: "jsdoc" });
    expect(parsesCleanly(result.document, "typescript")).toBe(true);
    expect(result.document).toContain("/**\n * Internal helper.\n * @param x The x.\n * @returns The result.");
    expect(result.document).toContain("  /**\n   * Get.\n   * @param {string} key The key.");
    expect(result.document.match(/Loads and parses/g)).toHaveLength(1);
  });

  it("renders html with escaped text, and json that parses", () => {
    const html = document({ outputFormat: "html", title: "<Config> & more" });
    expect(html.document).toContain("<title>&lt;Config&gt; &amp; more</title>");
    expect(html.document).toContain("Promise&lt;Record&lt;string, unknown&gt;&gt;");
    const json = JSON.parse(document({ outputFormat: "json", apiDocumentation: false, includeExamples: false }).document);
    expect(json.apiReference).toBeUndefined();
    expect(json.codeExamples).toEqual([]);
  });

  it("generates examples from the parameter types when the code has none", () => {
    const result = document({ codeBase: "export function area(width: number, height: number): number { return width * height; }" });
    expect(result.codeExamples).toEqual([{ title: "area", code: "const result = area(2, 3);", source: "generated" }]);
  });
});
