/** One call as the vendor billed it. */
export interface BilledUsage {
  /** When it ran (ISO time). */
  time: string;
  model: string;
  apiKeyId?: string;
  /** Input neither read from nor written to a cache. */
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  /** What the vendor charged for it, in dollars. */
  usd: number;
}

export type ReportBucket = Record<string, unknown>;

const DAY_MS = 86_400_000;

/** The dimensions a report groups by; the others are null in its results. */
export interface UsageGroups {
  model: boolean;
  apiKey: boolean;
}

export function usageGroups(groupBy: string[]): UsageGroups {
  return { model: groupBy.includes("model") || groupBy.includes("description"), apiKey: groupBy.includes("api_key_id") };
}

interface Sum {
  model: string | null;
  apiKeyId: string | null;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  usd: number;
  calls: number;
}

function sumsOf(calls: BilledUsage[], groups: UsageGroups): Sum[] {
  const sums = new Map<string, Sum>();
  for (const call of calls) {
    const model = groups.model ? call.model : null;
    const apiKeyId = groups.apiKey ? (call.apiKeyId ?? null) : null;
    const id = `${model}\u0000${apiKeyId}`;
    let sum = sums.get(id);
    if (!sum) {
      sum = { model, apiKeyId, input: 0, output: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, usd: 0, calls: 0 };
      sums.set(id, sum);
    }
    sum.input += call.input;
    sum.output += call.output;
    sum.cacheRead += call.cacheRead ?? 0;
    sum.cacheWrite5m += call.cacheWrite5m ?? 0;
    sum.cacheWrite1h += call.cacheWrite1h ?? 0;
    sum.usd += call.usd;
    sum.calls += 1;
  }
  return [...sums.values()];
}

function anthropicResult(kind: "usage" | "cost", sum: Sum): ReportBucket {
  if (kind === "cost")
    // Amounts in cents, as a decimal string.
    return {
      currency: "USD",
      amount: (sum.usd * 100).toFixed(6),
      workspace_id: null,
      description: sum.model ? `${sum.model} tokens` : null,
      cost_type: "tokens",
      context_window: "0-200k",
      model: sum.model,
      service_tier: "standard",
      token_type: null,
    };
  return {
    uncached_input_tokens: sum.input,
    cache_creation: { ephemeral_5m_input_tokens: sum.cacheWrite5m, ephemeral_1h_input_tokens: sum.cacheWrite1h },
    cache_read_input_tokens: sum.cacheRead,
    output_tokens: sum.output,
    server_tool_use: { web_search_requests: 0 },
    api_key_id: sum.apiKeyId,
    workspace_id: null,
    model: sum.model,
    service_tier: null,
    context_window: null,
  };
}

function openaiResult(kind: "usage" | "cost", sum: Sum): ReportBucket {
  if (kind === "cost")
    return {
      object: "organization.costs.result",
      amount: { value: sum.usd, currency: "usd" },
      line_item: sum.model ? `${sum.model}, tokens` : null,
      project_id: null,
    };
  return {
    object: "organization.usage.completions.result",
    // OpenAI's input count includes the cached tokens.
    input_tokens: sum.input + sum.cacheRead,
    output_tokens: sum.output,
    input_cached_tokens: sum.cacheRead,
    input_audio_tokens: 0,
    output_audio_tokens: 0,
    num_model_requests: sum.calls,
    project_id: null,
    user_id: null,
    api_key_id: sum.apiKeyId,
    model: sum.model,
    batch: null,
  };
}

/** One bucket per UTC day in `[startMs, endMs)`, each with the ledger's calls of that day summed per group. */
export function bucketsOf(
  ledger: BilledUsage[],
  vendor: "anthropic" | "openai",
  kind: "usage" | "cost",
  startMs: number,
  endMs: number,
  groups: UsageGroups,
): ReportBucket[] {
  const buckets: ReportBucket[] = [];
  for (let start = startMs; start < endMs; start += DAY_MS) {
    const calls = ledger.filter((call) => {
      const time = Date.parse(call.time);
      return time >= start && time < start + DAY_MS;
    });
    const sums = sumsOf(calls, groups);
    if (vendor === "anthropic")
      buckets.push({
        starting_at: new Date(start).toISOString(),
        ending_at: new Date(start + DAY_MS).toISOString(),
        results: sums.map((sum) => anthropicResult(kind, sum)),
      });
    else
      buckets.push({
        object: "bucket",
        start_time: start / 1000,
        end_time: (start + DAY_MS) / 1000,
        results: sums.map((sum) => openaiResult(kind, sum)),
      });
  }
  return buckets;
}
