import { z } from "zod";

export type Environment = Record<string, string | undefined>;

/** Settings every provider type shares, and the secret form the others use. */
export interface SettingFields {
  /** Where `"env:NAME"` secrets and a type's own fallbacks (`GOOGLE_APPLICATION_CREDENTIALS`, `AWS_*`) are read. */
  environment: Environment;
  /** A secret: the value itself, or `"env:NAME"` read from the environment (so a config file carries no secret). */
  secret: z.ZodType<string>;
  /** One key or several (a pool); each a secret. */
  apiKeys: z.ZodType<string[]>;
  baseURL: z.ZodOptional<z.ZodType<string>>;
  /** Model ids shown and allowed; without it the type's known ids are shown and any id is accepted. */
  models: z.ZodOptional<z.ZodType<string[]>>;
  embeddingModels: z.ZodOptional<z.ZodType<string[]>>;
}

const SECRET_REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;

function modelList() {
  return z
    .array(z.string().min(1, "expected a model id"), { error: "expected a non-empty array of model ids" })
    .min(1, "expected a non-empty array of model ids")
    .optional();
}

/** The shared fields, with `"env:NAME"` secrets read from `environment`. */
export function settingFields(environment: Environment): SettingFields {
  const secret = z.string({ error: "expected a string" }).transform((value, context) => {
    const reference = SECRET_REFERENCE.exec(value);
    if (reference === null) {
      if (value === "") context.addIssue({ code: "custom", message: "expected a non-empty string" });
      return value;
    }
    const name = reference[1] as string;
    const resolved = environment[name];
    if (resolved === undefined || resolved === "") {
      context.addIssue({ code: "custom", message: `environment variable ${name} is not set` });
      return z.NEVER;
    }
    return resolved;
  });
  return {
    environment,
    secret,
    apiKeys: z.array(secret, { error: "expected a non-empty array" }).min(1, "expected a non-empty array"),
    baseURL: z.url({ error: "expected an http(s) URL", protocol: /^https?$/ }).optional(),
    models: modelList(),
    embeddingModels: modelList(),
  };
}
