import { estimateTokens } from "@conduit-ai/server-core/internal";
import type { PromptFinding } from "../schemas/optimize-parameters-schema.js";

const FORMAT_WORDS =
  /\b(json|yaml|csv|xml|list|table|bullet|bullets|markdown|sentence|sentences|paragraph|paragraphs|words|steps|numbered|format|code|snippet|outline|haiku|poem)\b/i;
const AMBIGUOUS =
  /\b(some|stuff|things?|etc|maybe|a few|several|soon|good|nice|better|properly|appropriate|various|somehow|whatever|kind of|sort of)\b/gi;
const FILLERS =
  /\b(please|kindly|could you|would you|can you|i was wondering if|i would like you to|if possible|thanks in advance|thank you)\b[,]?\s*/gi;

/** Rough token count (server-core's one estimator), used for before/after figures. */
export { estimateTokens };
export const countWords = (text: string) => (text.trim() === "" ? 0 : text.trim().split(/\s+/).length);

function sentencesOf(text: string): string[] {
  return (
    text
      .match(/[^.!?\n]+[.!?]*|\n/g)
      ?.map((sentence) => sentence.trim())
      .filter((sentence) => sentence !== "") ?? []
  );
}

/** Measurable findings about a prompt: length, output format, ambiguity, structure, filler. */
export function promptFindings(prompt: string, goal: string, style: string): PromptFinding[] {
  const findings: PromptFinding[] = [];
  const words = countWords(prompt);
  if (words < 8)
    findings.push({
      rule: "too-short",
      message: `Only ${words} words: the model must guess the goal, audience and constraints.`,
      severity: "medium",
    });
  if (words > 1_500)
    findings.push({
      rule: "too-long",
      message: `${words} words: long prompts cost tokens on every call and bury the instruction.`,
      severity: "medium",
    });
  const seen = new Set<string>();
  for (const sentence of sentencesOf(prompt)) {
    const key = sentence.toLowerCase().replace(/\s+/g, " ");
    if (key.length > 15 && seen.has(key))
      findings.push({
        rule: "duplicate-sentence",
        message: "This sentence appears more than once.",
        severity: "low",
        excerpt: sentence.slice(0, 120),
      });
    seen.add(key);
  }
  if (!FORMAT_WORDS.test(prompt)) {
    findings.push({
      rule: "missing-output-format",
      message: "No output format is named (list, JSON, table, N sentences…): answers will vary in shape and length.",
      severity: style === "creative" ? "low" : "medium",
    });
  }
  let ambiguous = 0;
  for (const match of prompt.matchAll(AMBIGUOUS)) {
    if (ambiguous++ >= 10) break;
    findings.push({
      rule: "ambiguous-word",
      message: `"${match[0]}" is vague: say exactly what or how many.`,
      severity: "low",
      excerpt: match[0],
      position: match.index,
    });
  }
  const questions = (prompt.match(/\?/g) ?? []).length;
  if (questions > 1)
    findings.push({
      rule: "multiple-questions",
      message: `${questions} questions in one prompt: number them so each gets an answer.`,
      severity: "low",
    });
  if (/^\s*(it|this|that|they|these|those)\b/i.test(prompt))
    findings.push({
      rule: "unclear-reference",
      message: "Starts with a pronoun that refers to nothing in the prompt.",
      severity: "low",
      position: 0,
    });
  if (
    (goal === "tokens" || goal === "cost") &&
    !/\b(\d+|one|two|three|few)\s+(words|sentences|paragraphs|bullets|items|lines)\b|\b(brief|concise|short)\b/i.test(prompt)
  ) {
    findings.push({ rule: "no-length-limit", message: "No length limit: the model decides how many tokens you pay for.", severity: "low" });
  }
  if ((goal === "tokens" || goal === "cost") && FILLERS.test(prompt))
    findings.push({ rule: "filler", message: "Politeness and filler phrases cost tokens and change nothing.", severity: "low" });
  FILLERS.lastIndex = 0;
  if (/\s{3,}|[!?]{3,}/.test(prompt)) findings.push({ rule: "noise", message: "Runs of whitespace or punctuation.", severity: "low" });
  return findings;
}

const PENALTY = { low: 5, medium: 15, high: 25, critical: 40 } as const;

/** 100 minus the findings' penalties, at least 0. */
export function clarityScore(findings: PromptFinding[]): number {
  return Math.max(0, 100 - findings.reduce((sum, finding) => sum + PENALTY[finding.severity], 0));
}

const FORMAT_BY_STYLE: Record<string, string> = {
  creative: "Answer in prose of at most three paragraphs.",
  balanced: "Answer in short paragraphs or a bulleted list.",
  precise: "Answer as a numbered list of concrete points.",
  factual: 'Answer in short factual sentences and say "unknown" when unsure.',
};

/** The prompt rewritten by the rules that can be applied mechanically; the rest stay findings. */
export function rewritePrompt(prompt: string, findings: PromptFinding[], _goal: string, style: string, outputWords: number): string {
  const rules = new Set(findings.map((finding) => finding.rule));
  let text = prompt
    .replace(/[ \t]{2,}/g, " ")
    .replace(/([!?]){3,}/g, "$1")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (rules.has("duplicate-sentence")) {
    const seen = new Set<string>();
    text = (text.match(/[^.!?\n]+[.!?]*\s*|\n/g) ?? [text])
      .filter((sentence) => {
        const key = sentence.trim().toLowerCase().replace(/\s+/g, " ");
        if (key.length <= 15) return true;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .join("")
      .trim();
  }
  if (rules.has("filler")) text = text.replace(FILLERS, "").replace(/^\s*[a-z]/, (letter) => letter.toUpperCase());
  if (rules.has("multiple-questions")) {
    const parts = text.split(/(?<=\?)\s+/);
    if (parts.length > 1) text = parts.map((part, index) => `${index + 1}. ${part.trim()}`).join("\n");
  }
  const additions: string[] = [];
  if (rules.has("missing-output-format")) additions.push(FORMAT_BY_STYLE[style] ?? (FORMAT_BY_STYLE.balanced as string));
  if (rules.has("no-length-limit")) additions.push(`Keep the answer under ${outputWords} words.`);
  if (rules.has("too-short")) additions.push("Context: [who the answer is for and what it will be used for].");
  return additions.length > 0 ? `${text}\n\n${additions.join(" ")}` : text;
}
