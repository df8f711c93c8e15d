import { z } from "zod";
import type { FunctionFact } from "../code/function-facts.js";
import { parseCode, parsesCleanly } from "../code/parse-code.js";
import type { ModelStep } from "../provider/run-workflow.js";
import type { ResultMeta } from "../schemas/common.js";
import type { GenerateDocumentationRequest, GenerateDocumentationResult } from "../schemas/generate-documentation-schema.js";
import { type EntryAnchor, apiEntries, exampleCall } from "./api-entries.js";
import { renderDocumentation } from "./render-documentation.js";

type Documentation = Omit<GenerateDocumentationResult, keyof ResultMeta>;

function guidesOf(facts: FunctionFact[], importLine: string, examples: Documentation["codeExamples"]): Documentation["userGuides"] {
  const guides: Documentation["userGuides"] = [];
  const exported = facts.filter((fact) => fact.exported && fact.kind !== "method");
  const first = examples[0];
  guides.push({
    title: "Getting started",
    content: [
      exported.length > 0
        ? `The module exports ${exported.map((fact) => `\`${fact.name}\``).join(", ")}.`
        : "The module exports nothing yet; export the functions you want to use.",
      importLine && first ? `\`\`\`ts\n${importLine}\n${first.code}\n\`\`\`` : "",
    ]
      .filter(Boolean)
      .join("\n\n"),
  });
  for (const owner of facts.filter((fact) => fact.kind === "class")) {
    const methods = facts.filter((fact) => fact.kind === "method" && fact.className === owner.name);
    if (methods.length === 0) continue;
    guides.push({
      title: `Working with ${owner.name}`,
      content: `Create an instance, then call its methods (${methods.map((method) => `\`${method.name}\``).join(", ")}).\n\n\`\`\`ts\n${exampleCall(owner)}\n${methods
        .filter((method) => !method.isStatic)
        .map((method) =>
          exampleCall(method).replace(
            `new ${owner.name}()`,
            owner.name[0]?.toLowerCase() + owner.name.slice(1).replace(/[^A-Za-z0-9]/g, ""),
          ),
        )
        .join("\n")}\n\`\`\``,
    });
  }
  const throwing = facts.filter((fact) => fact.throws);
  if (throwing.length > 0)
    guides.push({
      title: "Error handling",
      content: `${throwing.map((fact) => `\`${fact.name}\``).join(", ")} throw on invalid input (see each entry's Throws). Wrap calls in try/catch where the input comes from users.`,
    });
  const asynchronous = facts.filter((fact) => fact.async);
  if (asynchronous.length > 0)
    guides.push({
      title: "Asynchronous calls",
      content: `${asynchronous.map((fact) => `\`${fact.name}\``).join(", ")} return promises: \`await\` them (inside an async function) and handle rejections.`,
    });
  return guides;
}

function build(
  request: GenerateDocumentationRequest,
  parsed: ReturnType<typeof parseCode>,
  content: Pick<Documentation, "apiReference" | "userGuides" | "codeExamples">,
  anchors: EntryAnchor[],
): string {
  const title = request.title ?? "API documentation";
  let document = renderDocumentation(request.outputFormat, title, content, {
    apiDocumentation: request.apiDocumentation,
    source: request.codeBase,
    anchors,
    includeExamples: request.includeExamples,
  });
  // The JSDoc output is code: it must still parse, else the source is returned unchanged.
  if (request.outputFormat === "jsdoc" && parsed.errors.length === 0 && !parsesCleanly(document, parsed.language))
    document = request.codeBase;
  return document;
}

/**
 * `generate-documentation` without a model: reads the real signatures, types and JSDoc from the
 * parsed code and renders an API reference, guides and examples in the chosen format.
 */
export function generateDocumentation(request: GenerateDocumentationRequest): Documentation & { anchors: EntryAnchor[] } {
  const parsed = parseCode(request.codeBase, request.language);
  const { entries, anchors, facts } = apiEntries(parsed);
  const exportedNames = facts
    .filter((fact) => fact.exported && fact.kind !== "method" && fact.exportName !== "default")
    .map((fact) => fact.exportName ?? fact.name);
  const importLine = exportedNames.length > 0 ? `import { ${exportedNames.join(", ")} } from "./module";` : "";
  const codeExamples: Documentation["codeExamples"] = request.includeExamples
    ? facts.flatMap((fact): Documentation["codeExamples"] => {
        const name = fact.kind === "method" ? `${fact.className}.${fact.name}` : fact.name;
        const documented = fact.jsdoc?.examples ?? [];
        if (documented.length > 0) return documented.map((code) => ({ title: name, code, source: "jsdoc" }));
        return [{ title: name, code: exampleCall(fact), source: "generated" }];
      })
    : [];
  const apiReference = request.includeExamples
    ? entries.map((entry) =>
        entry.examples.length > 0
          ? entry
          : {
              ...entry,
              examples: codeExamples
                .filter((example) => example.title === entry.name && example.source === "generated")
                .map((example) => example.code),
            },
      )
    : entries.map((entry) => ({ ...entry, examples: [] }));
  const userGuides = guidesOf(facts, importLine, codeExamples);
  const content = { apiReference, userGuides, codeExamples };
  return {
    ...content,
    document: build(
      request,
      parsed,
      content,
      anchors.map((anchor) => ({
        ...anchor,
        entry: apiReference.find((entry) => entry.name === anchor.entry.name && entry.line === anchor.entry.line) ?? anchor.entry,
      })),
    ),
    outputFormat: request.outputFormat,
    coverage: { documented: entries.filter((entry) => entry.documented).length, total: entries.length },
    parseErrors: parsed.errors.slice(0, 50),
    anchors,
  };
}

const modelOutputSchema = z.object({
  entries: z
    .array(
      z.object({
        name: z.string(),
        description: z.string().min(1),
        params: z.array(z.object({ name: z.string(), description: z.string() })).default([]),
        returns: z.string().optional(),
        example: z.string().optional(),
      }),
    )
    .max(200),
  userGuides: z
    .array(z.object({ title: z.string().min(1), content: z.string().min(1) }))
    .min(1)
    .max(10),
});

/** The AI path: the model writes descriptions, guides and examples for the entries the parser found. */
export function documentationModelStep(
  request: GenerateDocumentationRequest,
): (
  simulated: Documentation & { anchors: EntryAnchor[] },
) => ModelStep<Documentation & { anchors: EntryAnchor[] }, z.infer<typeof modelOutputSchema>> | undefined {
  return (simulated) =>
    simulated.apiReference.length === 0
      ? undefined
      : {
          instructions:
            "Write clear API documentation for the entries below: a description per entry and parameter, what it returns, a short usage example, and user guides. Use only names that appear in the entries.",
          prompt: `Code:\n${request.codeBase}\n\nEntries: ${JSON.stringify(simulated.apiReference.map(({ name, kind, signature, description, documented }) => ({ name, kind, signature, description, documented })))}`,
          schema: modelOutputSchema,
          merge: (documentation, output) => {
            const parsed = parseCode(request.codeBase, request.language);
            const apiReference = documentation.apiReference.map((entry) => {
              const written = output.entries.find((item) => item.name === entry.name);
              if (!written) return entry;
              return {
                ...entry,
                description: entry.documented ? entry.description : written.description,
                params: entry.params.map((param) => ({
                  ...param,
                  description: written.params.find((item) => item.name === param.name)?.description ?? param.description,
                })),
                returns: entry.returns && written.returns ? { ...entry.returns, description: written.returns } : entry.returns,
                examples: written.example && request.includeExamples ? [...entry.examples, written.example] : entry.examples,
              };
            });
            const codeExamples = [
              ...documentation.codeExamples,
              ...(request.includeExamples
                ? output.entries.flatMap((item) =>
                    item.example ? [{ title: item.name, code: item.example, source: "model" as const }] : [],
                  )
                : []),
            ];
            const content = { apiReference, userGuides: output.userGuides, codeExamples };
            const anchors = documentation.anchors.map((anchor) => ({
              ...anchor,
              entry: apiReference.find((entry) => entry.name === anchor.entry.name && entry.line === anchor.entry.line) ?? anchor.entry,
            }));
            return { ...documentation, ...content, document: build(request, parsed, content, anchors) };
          },
        };
}
