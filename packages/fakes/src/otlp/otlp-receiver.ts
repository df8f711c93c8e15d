import { createRequire } from "node:module";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { countProtobufSpans } from "./count-protobuf-spans.js";

/**
 * The OTLP protobuf definitions, as OpenTelemetry's own transformer shipped them (its generated
 * protobufjs root, kept as a dev dependency at the last version that carried the trace messages).
 */
type Decoder = { decode(bytes: Uint8Array): unknown; toObject(message: unknown, options: object): unknown };
const root = createRequire(import.meta.url)("@opentelemetry/otlp-transformer/build/src/generated/root.js") as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: Decoder; ExportTraceServiceResponse: Decoder } } } } };
};
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export type ReceivedAttributeValue = string | number | boolean | ReceivedAttributeValue[] | undefined;

/** One span as received, flattened: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, ReceivedAttributeValue>;
  events: Array<{ name: string; attributes: Record<string, ReceivedAttributeValue>; droppedAttributesCount?: number }>;
  /** What the sender left out under its span limits. */
  droppedAttributesCount: number;
  droppedEventsCount: number;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  resource: Record<string, ReceivedAttributeValue>;
  /** How it arrived. */
  encoding: "protobuf" | "json";
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

function attributeValue(value: OtlpAnyValue | undefined): ReceivedAttributeValue {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(attributeValue);
  return undefined;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, ReceivedAttributeValue> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, attributeValue(entry.value)]));
}

/** Protobuf bytes fields come as base64 from `toObject`; OTLP/JSON already carries hex. */
const hex = (value: string | undefined, encoding: "protobuf" | "json") =>
  value === undefined || value === "" ? "" : encoding === "json" ? value.toLowerCase() : Buffer.from(value, "base64").toString("hex");

function flatten(request: unknown, encoding: "protobuf" | "json"): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  type Body = {
    resourceSpans?: Array<{
      resource?: { attributes?: OtlpKeyValue[] };
      scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
    }>;
  };
  for (const resourceSpans of (request as Body).resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const status = (span.status ?? {}) as { code?: number | string; message?: string };
        spans.push({
          traceId: hex(span.traceId as string, encoding),
          spanId: hex(span.spanId as string, encoding),
          parentSpanId: hex(span.parentSpanId as string | undefined, encoding),
          name: span.name as string,
          kind: Number(span.kind ?? 0),
          attributes: attributesOf(span.attributes as OtlpKeyValue[]),
          events: ((span.events ?? []) as Array<{ name: string; attributes?: OtlpKeyValue[]; droppedAttributesCount?: number }>).map(
            (event) => ({
              name: event.name,
              attributes: attributesOf(event.attributes),
              ...(event.droppedAttributesCount ? { droppedAttributesCount: Number(event.droppedAttributesCount) } : {}),
            }),
          ),
          droppedAttributesCount: Number(span.droppedAttributesCount ?? 0),
          droppedEventsCount: Number(span.droppedEventsCount ?? 0),
          status: { code: Number(status.code ?? 0), ...(status.message ? { message: status.message } : {}) },
          startTimeUnixNano: String(span.startTimeUnixNano),
          endTimeUnixNano: String(span.endTimeUnixNano),
          resource,
          encoding,
        });
      }
    }
  }
  return spans;
}

/** The request's body, gunzipped when sent with `Content-Encoding: gzip` (as a collector accepts it). */
async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body;
}

/**
 * A real OTLP/HTTP traces endpoint on loopback: decodes `application/x-protobuf` with
 * OpenTelemetry's protobuf definitions and `application/json` as OTLP/JSON, keeps every span
 * and the request headers of each export, and answers as a collector does.
 *
 * @example
 * const receiver = await startOtlpReceiver();
 * process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
 * await receiver.waitFor((spans) => spans.some((span) => span.name === "POST /v1/messages"));
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Spans received since the last `clear()` (also counted when `countOnly`). */
  received = 0;
  readonly exports: Array<{ contentType: string; headers: IncomingMessage["headers"] }> = [];
  private waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    private readonly countOnly: boolean,
  ) {}

  static async start(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
    let receiver: OtlpReceiver | undefined;
    const server = createServer((request, response) => void receiver?.handle(request, response));
    receiver = new OtlpReceiver(server, options.countOnly ?? false);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  /** The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const contentType = request.headers["content-type"] ?? "";
    if (request.method !== "POST" || request.url !== "/v1/traces") {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readBody(request);
      if (this.countOnly) {
        this.received += contentType.startsWith("application/json")
          ? countSpans(JSON.parse(body.toString("utf8")))
          : countProtobufSpans(body);
        response.writeHead(200, {
          "content-type": contentType.startsWith("application/json") ? "application/json" : "application/x-protobuf",
        });
        response.end(contentType.startsWith("application/json") ? "{}" : undefined);
        return;
      }
      const decoded = contentType.startsWith("application/json")
        ? flatten(JSON.parse(body.toString("utf8")), "json")
        : flatten(
            ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, bytes: String, enums: Number }),
            "protobuf",
          );
      this.exports.push({ contentType, headers: request.headers });
      this.spans.push(...decoded);
      this.received += decoded.length;
    } catch (error) {
      response.writeHead(400, { "content-type": "text/plain" }).end(String(error));
      return;
    }
    // An empty ExportTraceServiceResponse: zero bytes in protobuf, `{}` in JSON.
    if (contentType.startsWith("application/json")) response.writeHead(200, { "content-type": "application/json" }).end("{}");
    else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    for (const wake of this.waiters) wake();
  }

  /** Resolves once the spans received satisfy `done` (checked at each export). */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 10_000): Promise<ReceivedSpan[]> {
    if (done(this.spans)) return Promise.resolve(this.spans);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`OTLP receiver: condition not met within ${timeoutMs} ms; got ${this.spans.map((span) => span.name).join(", ")}`));
      }, timeoutMs);
      const check = () => {
        if (!done(this.spans)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.spans);
      };
      this.waiters.add(check);
    });
  }

  clear(): void {
    this.received = 0;
    this.spans.length = 0;
    this.exports.length = 0;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface OtlpReceiverOptions {
  /**
   * Count each export's spans (protobuf by walking its wire format, JSON parsed) and keep neither
   * spans nor headers (benches: a collector's decoding, memory and flattening are not what they
   * measure). Default false.
   */
  countOnly?: boolean;
}

/** The spans of a decoded export request (protobuf message or OTLP/JSON object). */
function countSpans(request: unknown): number {
  let count = 0;
  type Body = { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }> };
  for (const resourceSpans of (request as Body).resourceSpans ?? [])
    for (const scope of resourceSpans.scopeSpans ?? []) count += scope.spans?.length ?? 0;
  return count;
}

/** Starts an `OtlpReceiver` on a free loopback port. */
export const startOtlpReceiver = (options?: OtlpReceiverOptions): Promise<OtlpReceiver> => OtlpReceiver.start(options);
