import type { AuthMiddlewareOptions } from "./auth-types.js";

/** Options shared by the bearer, API-key and basic shortcuts: everything but `type` and `validate`. */
export type SchemeMiddlewareOptions = Omit<AuthMiddlewareOptions, "type" | "validate" | "optional"> & {
  /** Refuse requests without a valid credential. Default true (`false` = docs/spec.md's optional auth). */
  required?: boolean;
};
