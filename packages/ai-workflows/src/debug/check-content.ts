import type { IssueList } from "./issue-list.js";
import type { TextPositions } from "./text-positions.js";

const PLACEHOLDERS = /\b(TODO|FIXME|TBD|lorem ipsum)\b|\[(insert|your|placeholder)[^\]]*\]|<(placeholder|insert[^>]*)>|\{\{\s*\w+\s*\}\}/gi;
const REFUSALS = /\b(as an ai (language )?model|i (cannot|can't|am unable to) (help|assist|provide|comply)|i'm sorry, but i)\b/i;

/**
 * Content checks of any output: empty, repeated lines (a model stuck in a loop), placeholders,
 * refusals, and prose that stops mid-sentence.
 */
export function checkContent(text: string, positions: TextPositions, issues: IssueList, prose: boolean): void {
  if (text.trim() === "") {
    issues.add({
      type: "completeness",
      severity: "critical",
      description: "The output is empty",
      line: 1,
      column: 1,
      suggestion: "Check the provider's finish reason and the prompt",
    });
    return;
  }
  const lines = text.split("\n");
  const counts = new Map<string, { count: number; line: number }>();
  for (const [index, line] of lines.entries()) {
    const key = line.trim().toLowerCase();
    if (key.length < 20) continue;
    const entry = counts.get(key) ?? { count: 0, line: index + 1 };
    entry.count++;
    counts.set(key, entry);
  }
  let repeats = 0;
  for (const [line, entry] of counts) {
    if (entry.count < 3 || repeats >= 10) continue;
    repeats++;
    issues.add({
      type: "logic",
      severity: entry.count >= 5 ? "high" : "medium",
      description: `The same line repeats ${entry.count} times ("${line.slice(0, 60)}${line.length > 60 ? "…" : ""}")`,
      line: entry.line,
      column: 1,
      suggestion: "Lower the temperature or add a frequency penalty; a looping model repeats itself",
    });
  }
  let placeholders = 0;
  for (const match of text.matchAll(PLACEHOLDERS)) {
    if (placeholders++ >= 20) break;
    issues.add({
      type: "completeness",
      severity: "medium",
      description: `Placeholder left in the output: "${match[0].slice(0, 60)}"`,
      ...positions.at(match.index ?? 0),
      suggestion: "Ask the model to fill in every value",
    });
  }
  const refusal = REFUSALS.exec(text);
  if (refusal)
    issues.add({
      type: "logic",
      severity: "high",
      description: `The model refused or deflected: "${refusal[0]}"`,
      ...positions.at(refusal.index),
      suggestion: "Rephrase the request or give the model the context it lacks",
    });
  if (prose) {
    const trimmed = text.trimEnd();
    const lastLine = trimmed.split("\n").at(-1) ?? "";
    if (trimmed.length > 200 && /[A-Za-z,]$/.test(trimmed) && !/^\s*([-*|#>]|\d+\.)/.test(lastLine) && !/^\s*(`{3}|~{3})/.test(lastLine)) {
      issues.add({
        type: "completeness",
        severity: "medium",
        description: "The text stops mid-sentence (possibly cut off by the token limit)",
        ...positions.at(trimmed.length - 1),
        suggestion: "Raise maxTokens",
      });
    }
  }
}
