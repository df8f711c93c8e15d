export { type FakeAnthropic, type FakeReply, type RecordedExchange, startFakeAnthropic } from "./fake-anthropic.js";
export { CLIENT_KEY, type ProxyServer, startProxyServer } from "./proxy-server.js";
export { type ReportedUsage, reportedUsage, streamedMessagesCall } from "./messages-calls.js";
