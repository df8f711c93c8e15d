import type { IncomingHttpHeaders } from "node:http";

/** One request a scripted agent fake received, and the status it answered. */
export interface AgentRequest {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  upgrade?: boolean;
}

/** A scripted agent fake on loopback: its base URL, what it received, and `close()`. */
export interface FakeAgent {
  url: string;
  requests: AgentRequest[];
  close(): Promise<void>;
}

export declare function startFakeAnthropicAgent(options: { apiKey: string }): Promise<FakeAgent>;
export declare function finalAnswerFor(toolResultText: string): string;
