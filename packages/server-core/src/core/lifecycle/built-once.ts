/**
 * A value made on first use and kept. The core's zod schemas are declared this way: building
 * them all costs about 10 ms, which `import` of the core would otherwise pay before a
 * server is even created.
 *
 * @example
 * export const tokenUsageSchema = builtOnce(() => z.object({ inputTokens: z.number().int() }));
 * tokenUsageSchema().parse(usage);
 */
export function builtOnce<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}
