/** The longest quota window a vendor documents (Anthropic's weekly unified limit): no cooldown lasts longer. */
export const MAX_COOLDOWN_MS = 7 * 24 * 60 * 60 * 1000;
