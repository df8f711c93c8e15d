import { type RawResponse, rawResponse } from "@conduit-ai/server-core";
import { jsonAnswer } from "./answers.js";
import { MessageChannel } from "./message-channel.js";
import { SSE_HEADERS, sseBody } from "./sse-body.js";

export interface RequestAnswerOptions {
  /** The client accepts `text/event-stream`. */
  acceptsSse: boolean;
  /** SSE from the start (the client asked for progress, or accepts only SSE). */
  streamNow: boolean;
  keepAliveMs: number;
  /** The client left, or the server drains. */
  signal: AbortSignal;
}

/**
 * The HTTP answer to one client request: JSON when its response is all there is to send, SSE as
 * soon as something must reach the client first (progress, a request a server makes of the client
 * mid-call) — decided by the first such message, not up front, so a call that asks nothing of the
 * client stays a plain JSON answer. Streamable HTTP lets the server choose per request.
 *
 * @example
 * const answer = new RequestAnswer({ acceptsSse: true, streamNow: false, keepAliveMs: 15_000, signal });
 * answer.push(requestMessage("conduit-1", "sampling/createMessage", params)); // now SSE
 * answer.finish(resultMessage(7, result));
 * return answer.response;
 */
export class RequestAnswer {
  readonly response: Promise<RawResponse>;
  #resolve: (response: RawResponse) => void = () => undefined;
  #channel: MessageChannel | undefined;
  #finished = false;

  constructor(private readonly options: RequestAnswerOptions) {
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    if (options.streamNow && options.acceptsSse) this.#stream();
  }

  #stream(): MessageChannel {
    if (!this.#channel) {
      this.#channel = new MessageChannel();
      this.#resolve(rawResponse(sseBody(this.#channel, this.options.keepAliveMs, this.options.signal), { headers: SSE_HEADERS }));
    }
    return this.#channel;
  }

  /** A message before the response (the answer becomes SSE); false when it cannot go: no SSE accepted, the stream gone or done. */
  push(message: string): boolean {
    if (!this.options.acceptsSse || this.#finished || this.options.signal.aborted) return false;
    const channel = this.#stream();
    if (channel.closed) return false;
    channel.push(message);
    return true;
  }

  /** The response: the stream's last message, or the JSON answer. */
  finish(message: string): void {
    this.#finished = true;
    if (this.#channel) this.#channel.finish(message);
    else this.#resolve(jsonAnswer(200, message));
  }
}
