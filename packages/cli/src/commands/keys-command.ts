import { parseArgs } from "node:util";
import { CommandExit, UsageError } from "../usage-error.js";

export const KEYS_USAGE = `Usage: conduit keys create --name NAME [--team ID] [--user U] [--models m1,m2] [--rpm N] [--tpm N]
                          [--concurrency N] [--budget USD/day|week|month|total]... [--expires ISO] [--url URL]
       conduit keys list [--url URL]
       conduit keys revoke KEY_ID [--url URL]
       conduit keys rotate KEY_ID [--grace SECONDS] [--url URL]
Talks to a running server's admin API. Environment: CONDUIT_ADMIN_KEY (required), CONDUIT_URL (default http://127.0.0.1:3000).`;

type Values = Record<string, string | string[] | boolean | undefined>;

function positiveInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) <= 0 || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${flag} expects a positive integer, got "${value}"`);
  return Number(value);
}

function budgetOf(text: string): { usd: number; window: string } {
  const match = /^(\d+(?:\.\d+)?)\/(day|week|month|total)$/.exec(text);
  if (!match || !Number.isFinite(Number(match[1]))) throw new UsageError(`--budget expects USD/window (e.g. 25/month), got "${text}"`);
  return { usd: Number(match[1]), window: match[2] as string };
}

/** The `POST /admin/keys` body of `conduit keys create`'s flags. */
export function createKeyBody(values: Values): Record<string, unknown> {
  if (typeof values.name !== "string" || values.name.length === 0) throw new UsageError(`conduit keys create needs --name\n${KEYS_USAGE}`);
  const limits = Object.fromEntries(
    (["rpm", "tpm", "concurrency"] as const)
      .map((flag) => [flag, positiveInteger(values[flag] as string | undefined, flag)])
      .filter(([, value]) => value !== undefined),
  );
  const budgets = ((values.budget as string[] | undefined) ?? []).map(budgetOf);
  return {
    name: values.name,
    ...(typeof values.team === "string" ? { team: values.team } : {}),
    ...(typeof values.user === "string" ? { user: values.user } : {}),
    ...(typeof values.models === "string"
      ? {
          models: values.models
            .split(",")
            .map((model) => model.trim())
            .filter(Boolean),
        }
      : {}),
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(budgets.length > 0 ? { budgets } : {}),
    ...(typeof values.expires === "string" ? { expiresAt: values.expires } : {}),
  };
}

async function adminCall(url: string, adminKey: string, method: string, path: string, body?: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(new URL(path, url), {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new Error(`cannot reach ${url} (${(error as Error).message})`);
  }
  const answer = (await response.json().catch(() => ({}))) as { data?: unknown; error?: { code?: string; message?: string } };
  if (!response.ok) {
    // A store outage (503 STORE_UNAVAILABLE) says when to try again: the server's Retry-After, in seconds.
    const retryAfter = Number(response.headers.get("retry-after"));
    const when = Number.isFinite(retryAfter) && retryAfter > 0 ? ` (retry in ${retryAfter} s)` : "";
    throw new Error(`${response.status} ${answer.error?.code ?? ""}: ${answer.error?.message ?? response.statusText}${when}`.trim());
  }
  return answer.data;
}

/**
 * `conduit keys create|list|revoke|rotate`: a running server's admin API from the terminal. The
 * new secret is printed once (create, rotate); list shows hints only. Exits 2 on bad usage, 1 when
 * the server refuses.
 */
export async function runKeys(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [action, ...rest] = argv.filter((arg) => arg !== "--");
  let values: Values;
  let positionals: string[];
  // Every flag is checked here, before any request: a bad value is a usage mistake (exit 2), never a failed call (1).
  let createBody: Record<string, unknown> | undefined;
  let graceSeconds: number | undefined;
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: {
        url: { type: "string" },
        name: { type: "string" },
        team: { type: "string" },
        user: { type: "string" },
        models: { type: "string" },
        rpm: { type: "string" },
        tpm: { type: "string" },
        concurrency: { type: "string" },
        budget: { type: "string", multiple: true },
        expires: { type: "string" },
        grace: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    }));
    if (values.help || !action || !["create", "list", "revoke", "rotate"].includes(action)) throw new UsageError(KEYS_USAGE);
    if (!env.CONDUIT_ADMIN_KEY) throw new UsageError(`conduit keys needs the admin key in CONDUIT_ADMIN_KEY\n${KEYS_USAGE}`);
    if ((action === "revoke" || action === "rotate") && positionals.length !== 1)
      throw new UsageError(`conduit keys ${action} needs one KEY_ID\n${KEYS_USAGE}`);
    if (action === "create") createBody = createKeyBody(values);
    if (values.grace !== undefined) {
      graceSeconds = Number(values.grace);
      if (!(/^\d+$/.test(values.grace as string) && Number.isSafeInteger(graceSeconds)))
        throw new UsageError(`--grace expects whole seconds ≥ 0, got "${values.grace}"`);
    }
  } catch (error) {
    console.error(error instanceof UsageError ? error.message : `${(error as Error).message}\n${KEYS_USAGE}`);
    throw new CommandExit(2);
  }
  const url = (values.url as string | undefined) ?? env.CONDUIT_URL ?? "http://127.0.0.1:3000";
  const adminKey = env.CONDUIT_ADMIN_KEY as string;
  try {
    if (action === "create") {
      const created = (await adminCall(url, adminKey, "POST", "/admin/keys", createBody)) as { id: string; key: string };
      console.log(JSON.stringify(created, null, 2));
      console.error("Store the key now: it is not shown again.");
    } else if (action === "list") {
      const keys = (await adminCall(url, adminKey, "GET", "/admin/keys")) as Array<{
        id: string;
        name: string;
        team?: string;
        hint: string;
        expiresAt?: string;
      }>;
      console.log(["ID", "NAME", "TEAM", "HINT", "EXPIRES"].join("\t"));
      for (const key of keys) console.log([key.id, key.name, key.team ?? "-", `…${key.hint}`, key.expiresAt ?? "-"].join("\t"));
    } else if (action === "revoke") {
      await adminCall(url, adminKey, "DELETE", `/admin/keys/${encodeURIComponent(positionals[0] as string)}`);
      console.log(`revoked ${positionals[0]}`);
    } else {
      const rotated = await adminCall(url, adminKey, "POST", `/admin/keys/${encodeURIComponent(positionals[0] as string)}/rotate`, {
        ...(graceSeconds === undefined ? {} : { graceSeconds }),
      });
      console.log(JSON.stringify(rotated, null, 2));
      console.error("Store the new key now: it is not shown again.");
    }
  } catch (error) {
    console.error(`conduit keys ${action}: ${(error as Error).message}`);
    throw new CommandExit(1);
  }
}
