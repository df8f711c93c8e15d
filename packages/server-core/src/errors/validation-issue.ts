/** One entry per failing field of a request or a config section (the envelope's `details.errors`). */
export interface ValidationIssue {
  field: string;
  message: string;
  value?: unknown;
}
