import { constantTimeEquals, secretDigestBytes } from "@conduit-ai/server-core/internal";

/** SHA-256 of a secret: fixed length, so a constant-time comparison applies whatever the input length. */
export const digestSecret = secretDigestBytes;

/**
 * Compares two secrets in time independent of where they differ (and of their lengths,
 * since both sides are hashed first). Server-core's `constantTimeEquals`, under auth's name.
 *
 * @example
 * secretsEqual(presentedPassword, storedPassword);
 */
export const secretsEqual = constantTimeEquals;
