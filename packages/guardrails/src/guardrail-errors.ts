import { ConfigurationError } from "@conduit-ai/server-core";
import type { ZodError } from "zod";

/** `rules.2.patterns.0`: the key path of a config problem, as the config file spells it. */
function pathOf(path: readonly PropertyKey[], prefix: string): string {
  return [prefix, ...path.map(String)].filter((part) => part !== "").join(".");
}

/**
 * A `guardrails` config that cannot run (a refused pattern, an unknown rule name): each problem
 * named by its key path, so `conduit proxy` can say where and exit 2.
 */
export class GuardrailConfigError extends ConfigurationError {
  readonly problems: { path: string; message: string }[];

  constructor(problems: { path: string; message: string }[]) {
    super(`Invalid guardrails config: ${problems.map((problem) => `${problem.path}: ${problem.message}`).join("; ")}`);
    this.problems = problems;
  }

  static fromZod(error: ZodError, prefix = "guardrails"): GuardrailConfigError {
    return new GuardrailConfigError(error.issues.map((issue) => ({ path: pathOf(issue.path, prefix), message: issue.message })));
  }
}
