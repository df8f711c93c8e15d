/**
 * Loopback stand-ins for what Conduit talks to — vendor APIs, MCP servers, an OTLP collector —
 * each speaking its real wire format on 127.0.0.1:0 with a `close()`: one per wire format,
 * configurable for what each test needs.
 */
export { listenOnLoopback } from "./listen-on-loopback.js";
export { readBodyText } from "./read-body.js";
export {
  type FakeHandler,
  type FakeScenario,
  type FakeServer,
  type FramePacing,
  type RecordedRequest,
  sendJson,
  sleep,
  startEventStream,
  startFakeServer,
  writeFrames,
} from "./fake-server.js";
export { type AnswerModel, answerByModelName, conversationAnswer, fixedAnswer, type ModelTurn, type TurnUsage } from "./model-turn.js";
export { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from "./openai/fake-openai.js";
export { chunkFrame, completionBody } from "./openai/openai-wire.js";
export { type PacedOpenAIStreams, startPacedOpenAIStreams } from "./openai/paced-openai-streams.js";
export {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  type FakeReply,
  type RecordedExchange,
  startFakeAnthropic,
} from "./anthropic/fake-anthropic.js";
export { claudeAnswer, type MessagesEvent, textMessage, textStreamEvents } from "./anthropic/anthropic-wire.js";
export { FakePromptCache, type PromptCacheUsage } from "./anthropic/prompt-cache.js";
export { type CodexAnswerParts, codexAnswerStream } from "./codex/codex-answer.js";
export { type CodexReply, codexStream, type FakeCodex, startFakeCodex } from "./codex/fake-codex.js";
export { type IdentityServer, type IdentityServerOptions, type SigningKey, startIdentityServer } from "./identity/identity-server.js";
export { startVendorFake, type VendorCall, type VendorFailure, type VendorFake, type VendorWire, VENDOR_USAGE } from "./vendor-fake.js";
export { startFakeGemini } from "./gemini/fake-gemini.js";
export { type FakeVertex, type ServiceAccountFile, startFakeVertex } from "./vertex/fake-vertex.js";
export { type FakeBedrock, startFakeBedrock } from "./bedrock/fake-bedrock.js";
export { eventStreamMessage } from "./bedrock/event-stream.js";
export { type FakeAzureOpenAI, startFakeAzureOpenAI } from "./azure/fake-azure-openai.js";
export { startFakeMistral } from "./mistral/fake-mistral.js";
export { startFakeCohere } from "./cohere/fake-cohere.js";
export type { UsageStyle } from "./openai/openai-wire.js";
export { PROVIDER_CASES, type ProviderSettings, VENDOR_KEY, type VendorCase } from "./provider-cases.js";
export {
  type AdminReportVendor,
  type BilledUsage,
  type FakeAdminReports,
  type FakeAdminReportsOptions,
  startFakeAdminReports,
} from "./admin-reports/fake-admin-reports.js";
export { billedAnthropicExchange } from "./admin-reports/billed-exchange.js";
export {
  createFixtureServer as createMcpFixtureServer,
  FIXTURE_TOOLS as MCP_FIXTURE_TOOLS,
  type FixtureSeen as McpFixtureSeen,
  type SeenTraceContext,
} from "./mcp/fixture-server.mjs";
export { type McpHttpFixture, type McpHttpFixtureOptions, startMcpHttpFixture } from "./mcp/http-fixture.js";
export { MCP_FIXTURE_STDIO_SCRIPT, SERVER_EVERYTHING_SCRIPT } from "./mcp/mcp-scripts.js";
export {
  OtlpReceiver,
  type OtlpReceiverOptions,
  type ReceivedAttributeValue,
  type ReceivedSpan,
  startOtlpReceiver,
} from "./otlp/otlp-receiver.js";
export { type FakeAgent, startFakeAnthropicAgent } from "./agents/fake-anthropic-agent.mjs";
export { startFakeCodexAgent } from "./agents/fake-codex-agent.mjs";
