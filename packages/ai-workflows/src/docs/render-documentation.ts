import type { ApiEntry, GenerateDocumentationResult, OutputFormat } from "../schemas/generate-documentation-schema.js";
import type { EntryAnchor } from "./api-entries.js";

type Content = Pick<GenerateDocumentationResult, "apiReference" | "userGuides" | "codeExamples">;

function markdownEntry(entry: ApiEntry): string {
  const lines = [`### ${entry.name}`, "", "```ts", entry.signature, "```", "", entry.description];
  if (entry.deprecated) lines.push("", `**Deprecated:** ${entry.deprecated}`);
  if (entry.params.length > 0) {
    lines.push("", "| Parameter | Type | Description |", "|---|---|---|");
    for (const param of entry.params)
      lines.push(
        `| \`${param.name}\`${param.optional ? " (optional)" : ""} | ${param.type ? `\`${param.type.replace(/\|/g, "\\|")}\`` : "—"} | ${param.description}${param.defaultValue ? ` Default: \`${param.defaultValue}\`.` : ""} |`,
      );
  }
  if (entry.returns) lines.push("", `**Returns** ${entry.returns.type ? `\`${entry.returns.type}\` — ` : ""}${entry.returns.description}`);
  for (const thrown of entry.throws) lines.push("", `**Throws** ${thrown}`);
  for (const example of entry.examples) lines.push("", "```ts", example, "```");
  return lines.join("\n");
}

function markdown(title: string, content: Content, apiDocumentation: boolean): string {
  const sections = [`# ${title}`];
  for (const guide of content.userGuides) sections.push(`## ${guide.title}\n\n${guide.content}`);
  if (apiDocumentation && content.apiReference.length > 0)
    sections.push(`## API reference\n\n${content.apiReference.map(markdownEntry).join("\n\n")}`);
  if (content.codeExamples.length > 0)
    sections.push(
      `## Examples\n\n${content.codeExamples.map((example) => `### ${example.title}\n\n\`\`\`ts\n${example.code}\n\`\`\``).join("\n\n")}`,
    );
  return `${sections.join("\n\n")}\n`;
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

function html(title: string, content: Content, apiDocumentation: boolean): string {
  const parts = [
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>\n<h1>${escapeHtml(title)}</h1>`,
  ];
  for (const guide of content.userGuides)
    parts.push(
      `<section><h2>${escapeHtml(guide.title)}</h2>${guide.content
        .split(/\n{2,}/)
        .map((block) =>
          block.startsWith("```")
            ? `<pre><code>${escapeHtml(block.replace(/^```\w*\n?|```$/g, ""))}</code></pre>`
            : `<p>${escapeHtml(block)}</p>`,
        )
        .join("")}</section>`,
    );
  if (apiDocumentation) {
    parts.push("<section><h2>API reference</h2>");
    for (const entry of content.apiReference) {
      parts.push(
        `<article id="${escapeHtml(entry.name)}"><h3>${escapeHtml(entry.name)}</h3><pre><code>${escapeHtml(entry.signature)}</code></pre><p>${escapeHtml(entry.description)}</p>`,
      );
      if (entry.params.length > 0)
        parts.push(
          `<table><thead><tr><th>Parameter</th><th>Type</th><th>Description</th></tr></thead><tbody>${entry.params.map((param) => `<tr><td><code>${escapeHtml(param.name)}</code></td><td>${escapeHtml(param.type ?? "")}</td><td>${escapeHtml(param.description)}</td></tr>`).join("")}</tbody></table>`,
        );
      if (entry.returns)
        parts.push(`<p><strong>Returns</strong> ${escapeHtml(entry.returns.type ?? "")} ${escapeHtml(entry.returns.description)}</p>`);
      parts.push("</article>");
    }
    parts.push("</section>");
  }
  if (content.codeExamples.length > 0)
    parts.push(
      `<section><h2>Examples</h2>${content.codeExamples.map((example) => `<h3>${escapeHtml(example.title)}</h3><pre><code>${escapeHtml(example.code)}</code></pre>`).join("")}</section>`,
    );
  parts.push("</body>\n</html>\n");
  return parts.join("\n");
}

function jsdocBlock(entry: ApiEntry, indentation: string, includeExamples: boolean): string {
  const lines = [entry.description];
  for (const param of entry.params)
    lines.push(
      `@param ${param.type ? `{${param.type}} ` : ""}${param.optional ? `[${param.name}${param.defaultValue ? `=${param.defaultValue}` : ""}]` : param.name} ${param.description}`,
    );
  if (entry.returns) lines.push(`@returns ${entry.returns.type ? `{${entry.returns.type}} ` : ""}${entry.returns.description}`);
  for (const thrown of entry.throws) lines.push(`@throws ${thrown}`);
  if (includeExamples) for (const example of entry.examples) lines.push("@example", ...example.split("\n"));
  const body = lines.flatMap((line) => line.split("\n")).map((line) => `${indentation} * ${line.replace(/\*\//g, "*\\/")}`.trimEnd());
  return `${indentation}/**\n${body.join("\n")}\n${indentation} */\n`;
}

/** The code with a JSDoc block inserted above every entry that had none. */
export function withJsDoc(source: string, anchors: EntryAnchor[], includeExamples: boolean): string {
  let output = source;
  const missing = anchors.filter((anchor) => !anchor.entry.documented).sort((a, b) => b.insertAt - a.insertAt);
  const seen = new Set<number>();
  for (const anchor of missing) {
    if (seen.has(anchor.insertAt)) continue;
    seen.add(anchor.insertAt);
    output =
      output.slice(0, anchor.insertAt) + jsdocBlock(anchor.entry, anchor.indentation, includeExamples) + output.slice(anchor.insertAt);
  }
  return output;
}

/** The documentation in the requested format. */
export function renderDocumentation(
  format: OutputFormat,
  title: string,
  content: Content,
  options: { apiDocumentation: boolean; source: string; anchors: EntryAnchor[]; includeExamples: boolean },
): string {
  switch (format) {
    case "markdown":
      return markdown(title, content, options.apiDocumentation);
    case "html":
      return html(title, content, options.apiDocumentation);
    case "json":
      return JSON.stringify(
        {
          title,
          ...(options.apiDocumentation ? { apiReference: content.apiReference } : {}),
          userGuides: content.userGuides,
          codeExamples: content.codeExamples,
        },
        null,
        2,
      );
    case "jsdoc":
      return withJsDoc(options.source, options.anchors, options.includeExamples);
  }
}
