import { type TraceSpan, getTracing } from "@conduit-ai/server-core";
import type { AccountConfig } from "../config.js";
import type { TapOutcome } from "./body-tap.js";
import type { VendorWire } from "./vendor-wire.js";

/** The vendor as the GenAI conventions name it (`gen_ai.provider.name`). */
const PROVIDER_NAMES: Record<VendorWire["vendor"], string> = { anthropic: "anthropic", codex: "openai" };

/** `model`, `max_tokens`/`max_output_tokens` of the request body, read only when tracing is on. */
function requestFacts(body: Uint8Array): { model?: string; maxTokens?: number } {
  try {
    const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8")) as Record<string, unknown>;
    const maxTokens = parsed.max_tokens ?? parsed.max_output_tokens;
    return {
      ...(typeof parsed.model === "string" ? { model: parsed.model } : {}),
      ...(typeof maxTokens === "number" ? { maxTokens } : {}),
    };
  } catch {
    return {};
  }
}

/** One upstream attempt: an HTTP client span whose `traceparent` goes upstream. */
export interface AttemptTrace {
  /** `traceparent`/`tracestate` naming this attempt as the vendor's parent. */
  readonly headers: Record<string, string>;
  answered(status: number): void;
  failed(error: unknown): void;
  end(): void;
}

/**
 * The spans of one relayed call: a GenAI `chat {model}` span for the whole call (usage and the
 * serving model when the answer's body ends), a client span per upstream attempt with
 * `conduit.proxy.account_id`, and the loop's decisions as events on the call's span
 * (`conduit.proxy.retry`, `conduit.proxy.cooldown`, `conduit.proxy.failover`). Account ids only:
 * never a credential, a header or the body's content.
 */
export class RelayTrace {
  #lastReason = "";
  #deferred = false;

  private constructor(
    private readonly span: TraceSpan,
    private readonly wire: VendorWire,
  ) {}

  /** Undefined when tracing is off: the relay then pays one property read per call. */
  static start(wire: VendorWire, body: Uint8Array, parent: TraceSpan | undefined): RelayTrace | undefined {
    const tracing = getTracing();
    if (!tracing.enabled) return undefined;
    const facts = requestFacts(body);
    const span = tracing.startSpan(facts.model ? `chat ${facts.model}` : "chat", {
      parent,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": PROVIDER_NAMES[wire.vendor],
        "gen_ai.request.model": facts.model,
        "gen_ai.request.max_tokens": facts.maxTokens,
      },
    });
    return new RelayTrace(span, wire);
  }

  attempt(account: AccountConfig, url: URL): AttemptTrace {
    const span = getTracing().startSpan("POST", {
      kind: "client",
      parent: this.span,
      attributes: {
        "http.request.method": "POST",
        "server.address": url.hostname,
        "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
        "url.full": `${url.origin}${url.pathname}`,
        "conduit.proxy.account_id": account.id,
        "conduit.proxy.vendor": this.wire.vendor,
      },
    });
    return {
      headers: span.traceHeaders(),
      answered: (status) => {
        span.setAttributes({ "http.response.status_code": status });
        if (status >= 400) span.fail(String(status));
      },
      failed: (error) => span.fail(error),
      end: () => span.end(),
    };
  }

  retry(account: AccountConfig, retry: number, cause: number | string): void {
    this.span.addEvent("conduit.proxy.retry", {
      "conduit.proxy.account_id": account.id,
      "conduit.proxy.retry": retry + 1,
      ...(typeof cause === "number" ? { "http.response.status_code": cause } : { "error.type": cause }),
    });
  }

  cooldown(account: AccountConfig, resetAt: number, reason: string): void {
    this.span.addEvent("conduit.proxy.cooldown", {
      "conduit.proxy.account_id": account.id,
      "conduit.proxy.cooldown_until": new Date(resetAt).toISOString(),
      "conduit.proxy.reason": reason,
    });
  }

  /** The account gave up on this call (why, for the failover event if another account takes it). */
  leaving(reason: string): void {
    this.#lastReason = reason;
  }

  /** Another account takes the call after `from` gave up. */
  failover(from: string, to: AccountConfig): void {
    this.span.addEvent("conduit.proxy.failover", {
      "conduit.proxy.from_account_id": from,
      "conduit.proxy.account_id": to.id,
      "conduit.proxy.reason": this.#lastReason,
    });
  }

  /** The answer's body carries on: the call's span ends with it (see `bodyEnded`). */
  deferToBody(): void {
    this.#deferred = true;
  }

  bodyEnded(status: number, outcome: TapOutcome): void {
    const usage = outcome.usage;
    this.span.setAttributes({
      "http.response.status_code": status,
      "gen_ai.response.model": usage?.model,
      "gen_ai.usage.input_tokens": usage?.usage.input,
      "gen_ai.usage.output_tokens": usage?.usage.output,
      "gen_ai.usage.cache_read.input_tokens": usage?.usage.cacheRead,
      "gen_ai.usage.cache_creation.input_tokens": usage ? usage.usage.cacheWrite5m + usage.usage.cacheWrite1h : undefined,
      ...(outcome.completed ? {} : { "conduit.proxy.completed": false }),
    });
    if (!outcome.completed) this.span.fail("incomplete_answer");
    this.span.end();
  }

  /** The call answered without a passed-through body (an error reply, a refusal). */
  settled(status: number): void {
    if (this.#deferred) return;
    this.span.setAttributes({ "http.response.status_code": status });
    if (status >= 400) this.span.fail(String(status));
    this.span.end();
  }

  failed(error: unknown): void {
    this.span.fail(error);
    this.span.end();
  }
}
