export {
  type GuardrailAction,
  type GuardrailDirection,
  type GuardrailRule,
  type GuardrailsConfig,
  type GuardrailsConfigInput,
  guardrailsConfigSchema,
} from "./config-schema.js";
export { PII_ENTITIES, type PiiEntity } from "./detectors/pii.js";
export { SECRET_TYPES, type SecretType } from "./detectors/secrets.js";
export { GuardrailConfigError } from "./guardrail-errors.js";
export { GuardrailSet, type GuardrailOutcome, estimateTokens } from "./guardrail-set.js";
export { GuardrailViolation, violationMessage } from "./guardrail-violation.js";
export { type Guardrails, type GuardrailsOptions, createGuardrails, parseGuardrailsConfig, resolveRuleNames } from "./guardrails.js";
export { type TextSlot, textSlotsOf } from "./json-texts.js";
export type { GuardrailHit, TextScan } from "./match-rules.js";
export type { HintChars } from "./hint-chars.js";
export { type ScanStep, StreamScanner, type StreamScannerOptions } from "./stream-scanner.js";
export type { GuardrailCallContext } from "./webhook.js";
export { guardrailMetrics } from "./guardrail-metrics.js";
export { type GuardedRuntimeOptions, guardRuntime } from "./guarded-runtime.js";
export { type ApiGuardrails, createApiGuardrails } from "./api-guardrails.js";
export { workRequestSlots } from "./work-request-texts.js";
export { type McpToolGuardShape, mcpToolGuard } from "./mcp-tool-guard.js";
