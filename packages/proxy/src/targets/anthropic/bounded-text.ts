/** Error bodies larger than this are not read further: what is needed of them is at the start. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * The first `limit` bytes of a response body as text, the rest cancelled: enough to read a
 * vendor's error shape without letting an upstream make the proxy buffer an arbitrary body.
 *
 * @example
 * const text = await boundedText(upstream);
 */
export async function boundedText(response: Response, limit = MAX_ERROR_BODY_BYTES): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString("utf8");
}
