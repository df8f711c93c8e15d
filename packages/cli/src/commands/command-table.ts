import { AUDIT_USAGE, runAudit } from "./audit-command.js";
import { GENERATE_USAGE, runGenerate } from "./generate-command.js";
import { GUARDRAILS_USAGE, runGuardrails } from "./guardrails-command.js";
import { KEYS_USAGE, runKeys } from "./keys-command.js";
import { OPENAPI_USAGE, runOpenApi } from "./openapi-command.js";
import { PROXY_USAGE, runProxy } from "./proxy-command.js";
import { RECONCILE_USAGE, runReconcile } from "./reconcile-command.js";
import { ROUTES_USAGE, runRoutes } from "./routes-command.js";
import { SERVE_COMMAND_USAGE, serveCommand } from "./serve-command.js";

/** One `conduit <name>` command: runs with the arguments after its name. */
export interface Command {
  summary: string;
  /** Printed by `conduit <name> --help` (a command without one handles `--help` itself). */
  usage?: string;
  run(argv: string[], env: NodeJS.ProcessEnv): Promise<void>;
}

/** Every command of `conduit`, by name. A new command is one file in this folder and one line here. */
export const COMMANDS: Record<string, Command> = {
  serve: {
    summary: "start the server (the demo's assembly); --workers N for one process per core",
    usage: SERVE_COMMAND_USAGE,
    run: (argv, env) => serveCommand(argv, env),
  },
  generate: { summary: "one generation on the runtime (offline local provider by default)", usage: GENERATE_USAGE, run: runGenerate },
  routes: { summary: "list the configured server's routes (method, path, group, auth)", usage: ROUTES_USAGE, run: runRoutes },
  openapi: { summary: "print the configured server's OpenAPI document (--yaml for YAML)", usage: OPENAPI_USAGE, run: runOpenApi },
  keys: { summary: "create, list, revoke or rotate virtual keys on a running server (CONDUIT_ADMIN_KEY)", usage: KEYS_USAGE, run: runKeys },
  audit: {
    summary: "verify the audit log's hash chain in PostgreSQL (DATABASE_URL); exit 1 names the first bad row",
    usage: AUDIT_USAGE,
    run: runAudit,
  },
  guardrails: {
    summary: 'show what each configured guardrail would do to a text (guardrails test --config FILE "text")',
    usage: GUARDRAILS_USAGE,
    run: runGuardrails,
  },
  reconcile: {
    summary: "the vendor's usage and cost reports beside Conduit's usage history, with the drift; exit 1 on drift",
    usage: RECONCILE_USAGE,
    run: runReconcile,
  },
  proxy: { summary: "serve the vendor proxy of a config file's proxy section (+ the codex engine)", usage: PROXY_USAGE, run: runProxy },
};
