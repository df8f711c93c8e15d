import { z } from "zod";

/** The caller's choice of provider and model for the provider path (any provider but `local`). */
export const providerSelectionShape = {
  provider: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      "Provider for the AI path (default: the runtime's default provider unless it is `local`); `local` asks for the simulated result",
    ),
  model: z.string().min(1).max(200).optional().describe("Model of that provider (default: the provider's default model)"),
};

/** Added to every result: how it was produced. */
export const resultMetaShape = {
  simulated: z.boolean().describe("True when the result comes from the deterministic analysis (no provider, only `local`, or a fallback)"),
  provider: z.string().nullable().describe("Provider that produced the result; null when simulated"),
  model: z.string().nullable().describe("Model that produced the result; null when simulated"),
  fallbackReason: z.string().optional().describe("Present when a provider was tried and the result fell back to the simulated one"),
};

export interface ResultMeta {
  simulated: boolean;
  provider: string | null;
  model: string | null;
  fallbackReason?: string;
}

export const severitySchema = z.enum(["low", "medium", "high", "critical"]);
export type Severity = z.infer<typeof severitySchema>;

export const impactSchema = z.enum(["low", "medium", "high"]);

/** A list of distinct enum values (duplicates would ask for the same work twice). */
export function distinctList<T extends z.ZodType>(item: T, min: number, max: number) {
  return z
    .array(item)
    .min(min)
    .max(max)
    .refine((values) => new Set(values).size === values.length, { message: "Values must be distinct" });
}
