export { type CodexRouteOptions, createCodexRoute } from "./codex-route.js";
export { type CodexSenderOptions, type SendCodex, createCodexSender } from "./codex-sender.js";
export { DEFAULT_USAGE_LIMIT_COOLDOWN_MS, codexError, usageLimitResetAt } from "./usage-limit.js";
