import { setting, settingsProblem } from "../../config/settings-reader.js";
import { ADMIN_TIMEOUT_MS } from "./admin-http.js";

/** Settings every vendor with user operations accepts: how long one admin API request may take. */
export const ADMIN_COMMON_SETTINGS = { adminTimeoutMs: setting.number(1) };

/** `adminTimeoutMs`, or the default. */
export const adminTimeoutOf = (settings: { adminTimeoutMs?: number }): number => settings.adminTimeoutMs ?? ADMIN_TIMEOUT_MS;

/**
 * The admin credentials of a vendor, all given or none: none leaves the user operations out
 * (a provider that only checks tokens needs no admin access); some but not all is a settings
 * error naming the first missing key (never a value).
 *
 * @example
 * if (adminCredentialsGiven("auth0", settings, ["managementClientId", "managementClientSecret"])) { ... }
 */
export function adminCredentialsGiven(provider: string, settings: object, keys: readonly string[]): boolean {
  const values = settings as Record<string, unknown>;
  const missing = keys.filter((key) => values[key] === undefined);
  if (missing.length === keys.length) return false;
  if (missing.length > 0) {
    throw settingsProblem(
      provider,
      `auth.${missing[0]}`,
      `required together with ${keys.filter((key) => !missing.includes(key)).join(", ")}`,
    );
  }
  return true;
}
