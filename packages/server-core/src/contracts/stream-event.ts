export const DATA_STREAM_EVENT_TYPES = [
  "text-start",
  "text-delta",
  "text-end",
  "tool-call",
  "tool-result",
  "data",
  "error",
  "finish",
] as const;
export type DataStreamEventType = (typeof DATA_STREAM_EVENT_TYPES)[number];

/** One event of a streamed response, sent whole as the SSE `data:` JSON or as one NDJSON line. */
export interface DataStreamEvent<TData = unknown> {
  type: DataStreamEventType;
  id?: string;
  timestamp: number;
  data: TData;
}
