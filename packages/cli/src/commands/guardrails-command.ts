import { parseArgs } from "node:util";
import { readConfigFile } from "../config-file.js";
import { UsageError } from "../usage-error.js";

export const GUARDRAILS_USAGE = `Usage: conduit guardrails test --config conduit.json "text"
Prints what each rule of the config file's guardrails would do to the text: its action, what it
found (entity and count) and the text it would send on. A rule checking both directions is shown
as on a request; a webhook rule is asked for real. Exit 2 on a config mistake.`;

/** One line per rule: its name, kind, the direction it was tried in, its decision, and the text after it. */
export async function runGuardrails(argv: string[], _env: NodeJS.ProcessEnv): Promise<void> {
  let parsed: { values: { config?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: { config: { type: "string", short: "c" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${GUARDRAILS_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] !== "test" || positionals.length !== 2) throw new UsageError(GUARDRAILS_USAGE);
  if (!values.config) throw new UsageError(`conduit guardrails test needs --config\n${GUARDRAILS_USAGE}`);
  const file = readConfigFile(values.config, "serve");
  const { createGuardrails, parseGuardrailsConfig } = await import("@conduit-ai/guardrails");
  const config = parseGuardrailsConfig(file.guardrails ?? {});
  if (config.rules.length === 0) {
    console.log(`${values.config} configures no guardrails`);
    return;
  }
  const text = positionals[1] ?? "";
  for (const rule of config.rules) {
    const direction = rule.on === "response" ? "response" : "request";
    const set = createGuardrails({ rules: [rule], default: [rule.name], window: config.window }).select();
    let after = text;
    const slot = {
      text,
      replace: (masked: string) => {
        after = masked;
      },
    };
    const outcome = await set?.checkTexts(direction, [slot]);
    const found = new Map<string, number>();
    for (const hit of outcome?.hits ?? []) found.set(hit.entity, (found.get(hit.entity) ?? 0) + 1);
    const what = [...found].map(([entity, count]) => `${entity} ×${count}`).join(", ");
    const isDefault = config.default.includes(rule.name) ? "default" : "by key or team";
    const head = `${rule.name} (${rule.kind}, ${direction}, ${isDefault}):`;
    if (outcome?.block) console.log(`${head} block — ${what}`);
    else if (found.size === 0) console.log(`${head} pass`);
    else if (after !== text) console.log(`${head} mask — ${what} → ${after}`);
    else console.log(`${head} log — ${what}`);
  }
}
