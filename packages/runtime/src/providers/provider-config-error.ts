import { type ConfigIssue, ConfigurationError } from "@conduit-ai/server-core";

/** One problem of the `providers` config, by its key path (`providers.gemini.apiKeys`). */
export type ProviderConfigIssue = ConfigIssue;

/**
 * The `providers` config (or a provider environment variable) is wrong: the message names every
 * problem by its key path (`providers.gemini.apiKeys: expected a non-empty array`), and
 * `details.issues` lists them. `conduit serve` and `conduit proxy` print it and exit 2.
 */
export class ProviderConfigError extends ConfigurationError {
  constructor(issues: ProviderConfigIssue[]) {
    super(issues.map((issue) => `${issue.path}: ${issue.message}`).join("; "), { details: { issues } });
  }
}
