/**
 * Sends a Messages API request body through the account pool (account choice, failover) and
 * returns the upstream's answer. The same shape as the pool's `SendMessages` in `../send-messages.ts`.
 *
 * @example
 * const sendMessages: SendMessages = (body, init) => fetch("https://api.anthropic.com/v1/messages", { method: "POST", body, ...init });
 */
export type SendMessages = (body: Uint8Array, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;
