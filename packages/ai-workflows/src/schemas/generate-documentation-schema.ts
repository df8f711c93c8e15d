import { z } from "zod";
import { providerSelectionShape, resultMetaShape } from "./common.js";
import { PARSED_LANGUAGES, codeField, parseIssueSchema } from "./code-schema.js";

export const OUTPUT_FORMATS = ["markdown", "jsdoc", "html", "json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const generateDocumentationRequestSchema = z.object({
  codeBase: codeField("JavaScript or TypeScript source to document"),
  outputFormat: z
    .enum(OUTPUT_FORMATS)
    .describe("markdown/html: a reference page; jsdoc: the code with JSDoc added; json: the reference as JSON"),
  includeExamples: z.boolean(),
  apiDocumentation: z.boolean().default(true).describe("Include the API reference section in the document"),
  title: z.string().min(1).max(200).optional(),
  language: z.enum(PARSED_LANGUAGES).optional(),
  ...providerSelectionShape,
});
export type GenerateDocumentationRequest = z.output<typeof generateDocumentationRequestSchema>;

export const apiEntrySchema = z.object({
  name: z.string(),
  kind: z.enum(["function", "class", "method", "constant", "interface", "type"]),
  signature: z.string(),
  description: z.string(),
  params: z.array(
    z.object({
      name: z.string(),
      type: z.string().nullable(),
      optional: z.boolean(),
      defaultValue: z.string().nullable(),
      description: z.string(),
    }),
  ),
  returns: z.object({ type: z.string().nullable(), description: z.string() }).nullable(),
  throws: z.array(z.string()),
  examples: z.array(z.string()),
  deprecated: z.string().nullable(),
  exported: z.boolean(),
  line: z.number().int(),
  documented: z.boolean().describe("Had its own JSDoc in the source"),
});
export type ApiEntry = z.infer<typeof apiEntrySchema>;

export const generateDocumentationResultSchema = z.object({
  apiReference: z.array(apiEntrySchema),
  userGuides: z.array(z.object({ title: z.string(), content: z.string() })),
  codeExamples: z.array(z.object({ title: z.string(), code: z.string(), source: z.enum(["jsdoc", "generated", "model"]) })),
  document: z.string().describe("The documentation rendered in outputFormat"),
  outputFormat: z.enum(OUTPUT_FORMATS),
  coverage: z.object({ documented: z.number().int(), total: z.number().int() }),
  parseErrors: z.array(parseIssueSchema),
  ...resultMetaShape,
});
export type GenerateDocumentationResult = z.output<typeof generateDocumentationResultSchema>;
