import type { z } from "zod";

/** What this file reads of a zod 4 issue: `invalid_union` carries each branch's own issues. */
type Issue = z.core.$ZodIssue;

/** The value is not of this branch's type at all (a string where an object is expected, or the reverse). */
function isWrongType(issue: Issue): boolean {
  return issue.path.length === 0 && (issue.code === "invalid_type" || issue.code === "invalid_union");
}

/**
 * The issues a config mistake is reported by, with a union (`models.<name>`: a string, a target
 * with fallbacks, or deployments) replaced by the issues of the branch the value was written
 * for: the branch whose type it has (no issue at the union's own path) with the fewest issues.
 * A bad `strategy` then names `models.fast.strategy` instead of `invalid_union` at `models.fast`.
 */
export function branchIssues(issues: readonly Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
    const shaped = issue.errors.filter((branch) => !branch.some(isWrongType));
    if (shaped.length === 0) return [issue];
    const closest = shaped.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return branchIssues(closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue));
  });
}

/**
 * The words of one config issue: the allowed values of an enum (`expected one of priority,
 * weighted, …`), the keys not allowed, the types a union takes, else zod's message.
 */
export function configIssueMessage(issue: Issue): string {
  if (issue.code === "invalid_value") return `expected one of ${issue.values.map(String).join(", ")}`;
  if (issue.code === "unrecognized_keys") return `unknown key(s) ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_union" && "options" in issue && issue.options !== undefined)
    return `expected one of ${issue.options.map(String).join(", ")}`;
  if (issue.code === "invalid_union") {
    const expected = issue.errors.flatMap((branch) => branch.flatMap((inner) => (inner.code === "invalid_type" ? [inner.expected] : [])));
    return `expected ${[...new Set(expected)].join(" or ") || "one of its documented shapes"}`;
  }
  // zod's own words: they name the expected type or bound, never the value given (a secret stays out).
  return issue.message;
}
