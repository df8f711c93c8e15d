export { CLIENT_KEY, type ProxyServer, startProxyServer } from "./proxy-server.js";
export { type ReportedUsage, reportedUsage, streamedMessagesCall } from "./messages-calls.js";
