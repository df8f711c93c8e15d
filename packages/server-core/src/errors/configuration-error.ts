import { ErrorCategory, ErrorCode, ErrorSeverity } from "./codes.js";
import { type PresetOptions, preset } from "./error-preset.js";
import { type PackageManager, installCommand } from "./install-command.js";
import { ServerAdapterError } from "./server-adapter-error.js";
import { type ZodIssueLike, formatZodIssues } from "./zod-issues.js";

const { CONFIG } = ErrorCategory;
const { HIGH, CRITICAL } = ErrorSeverity;

/** One configuration problem, by its key path (`providers.gemini.apiKeys`, `telemetry.endpoint`). */
export interface ConfigIssue {
  path: string;
  message: string;
}

/**
 * Invalid configuration, the one config-error type of every package (server, providers,
 * telemetry, the MCP gateway): `issues` names every problem by key path, and the message reads
 * `path: problem; …`. The CLI prints it and exits 2.
 *
 * @example
 * throw ConfigurationError.at("telemetry.endpoint", "expected a URL");
 */
export class ConfigurationError extends ServerAdapterError {
  constructor(message: string, options: PresetOptions = {}) {
    super(message, preset(400, CONFIG, ErrorCode.INVALID_CONFIG, HIGH, false, options));
  }

  /** Every problem by key path (empty when the error was built from a message alone). */
  get issues(): ConfigIssue[] {
    const issues = (this.details as { issues?: unknown } | undefined)?.issues;
    return Array.isArray(issues) ? (issues as ConfigIssue[]) : [];
  }

  /** An error naming each problem by key path: the message lists them as `path: problem`. */
  static of(issues: ConfigIssue[], options: PresetOptions = {}): ConfigurationError {
    const message = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    return new ConfigurationError(message, { ...options, details: { issues } });
  }

  /** One problem at one key path. */
  static at(path: string, message: string): ConfigurationError {
    return ConfigurationError.of([{ path, message }]);
  }

  /**
   * A config section's zod issues under its key (`root`): an unknown key is named where it
   * sits (`telemetry.sdkk: unknown key`), a value outside a closed set lists the set
   * (`telemetry.sdk: expected "conduit" | "opentelemetry"`).
   *
   * @example
   * const result = schema.safeParse(section);
   * if (!result.success) throw ConfigurationError.ofZod(result.error, "telemetry");
   */
  static ofZod(error: { readonly issues: readonly ZodIssueLike[] }, root: string): ConfigurationError {
    const issues = formatZodIssues(error, { root, unknownKeys: "each", message: configIssueMessage });
    return ConfigurationError.of(issues.map(({ field, message }) => ({ path: field, message })));
  }
}

/** A closed set spelled as its members; every other issue keeps the schema's own wording. */
function configIssueMessage(issue: ZodIssueLike): string {
  if (issue.code === "invalid_value" && issue.values && issue.values.length > 0)
    return `expected ${issue.values.map((value) => JSON.stringify(value)).join(" | ")}`;
  return issue.message;
}

/**
 * An optional package is not installed (a framework, an adapter, or what an enabled feature
 * needs, e.g. `swagger-ui-dist` for the docs page). The message names the install line for the
 * package manager in use (`npm install …`, `pnpm add …`, `yarn add …`, `bun add …`).
 */
export class MissingDependencyError extends ServerAdapterError {
  readonly packageName: string;
  /**
   * `packages` lists everything to add (e.g. the adapter and its framework; default `packageName`);
   * `feature` says what needs it (e.g. `"the docs page (enableSwagger)"`).
   */
  constructor(
    packageName: string,
    options: PresetOptions & { packages?: string[]; feature?: string; packageManager?: PackageManager } = {},
  ) {
    const { packages = [packageName], feature, packageManager, ...rest } = options;
    const install = installCommand(packages, packageManager);
    const neededBy = feature ? ` (needed by ${feature})` : "";
    super(`Missing dependency "${packageName}"${neededBy}. Install it with: ${install}`, {
      ...preset(500, CONFIG, ErrorCode.MISSING_DEPENDENCY, CRITICAL, false, rest),
      details: { package: packageName, packages, install, ...(feature ? { feature } : {}) },
    });
    this.packageName = packageName;
  }
}
