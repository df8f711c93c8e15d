import type { FakeAgent } from "./fake-anthropic-agent.mjs";

export declare function startFakeCodexAgent(options: { accessToken: string }): Promise<FakeAgent>;
