import type { DebugIssue, IssueType } from "../schemas/debug-ai-output-schema.js";

/** Collects issues of the requested types; one place decides what is kept. */
export class IssueList {
  readonly issues: DebugIssue[] = [];
  readonly skipped: string[] = [];

  constructor(readonly wanted: ReadonlySet<IssueType>) {}

  add(issue: DebugIssue): void {
    if (!this.wanted.has(issue.type)) return;
    this.issues.push({ source: "analysis", ...issue });
  }

  has(type: IssueType): boolean {
    return this.issues.some((issue) => issue.type === type);
  }

  /** Runs one check; a check that throws is reported as skipped instead of failing the request. */
  run(name: string, check: () => void): void {
    try {
      check();
    } catch (error) {
      this.skipped.push(
        `${name}: ${error instanceof RangeError ? "input too deeply nested" : error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
