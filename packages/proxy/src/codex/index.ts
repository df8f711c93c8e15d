export { type CodexRouteOptions, createCodexRoute, createCodexRouteGroup } from "./codex-route.js";
export { codexErrorShape, writeCodexError } from "./error-shape.js";
export { type CodexSenderOptions, type SendCodex, codexWire, createCodexRelay, createCodexSender } from "./codex-sender.js";
export { DEFAULT_USAGE_LIMIT_COOLDOWN_MS, codexError, codexErrorReply, usageLimitResetAt } from "./usage-limit.js";
