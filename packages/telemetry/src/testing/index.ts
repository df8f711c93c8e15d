export { type McpTraceServer, type SeenToolCall, startMcpTraceServer } from "./mcp-trace-server.js";
export { type AttributeValue, OtlpReceiver, type OtlpReceiverOptions, type ReceivedSpan, startOtlpReceiver } from "./otlp-receiver.js";
export { installLeanEngineWithoutExport } from "./lean-engine-without-export.js";
