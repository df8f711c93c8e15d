import { crc32 } from "node:zlib";

/**
 * One message of the AWS event stream encoding (`application/vnd.amazon.eventstream`): a prelude
 * (total length, headers length, their CRC32), string headers, the payload, the message's CRC32.
 * What Bedrock's `ConverseStream` answers with, one event per message.
 *
 * @example
 * eventStreamMessage({ ":event-type": "messageStart", ":message-type": "event", ":content-type": "application/json" }, '{"role":"assistant"}');
 */
export function eventStreamMessage(headers: Record<string, string>, payload: string): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, "utf8");
      const valueBytes = Buffer.from(value, "utf8");
      const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
      header.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(header, 1);
      // Header value type 7: a string with a two-byte length.
      header.writeUInt8(7, 1 + nameBytes.length);
      header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      valueBytes.copy(header, 4 + nameBytes.length);
      return header;
    }),
  );
  const payloadBytes = Buffer.from(payload, "utf8");
  const total = 12 + headerBytes.length + payloadBytes.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, 12);
  payloadBytes.copy(message, 12 + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

/** A Bedrock stream event: `:event-type` names it, the payload is its JSON with the padding field `p` Bedrock adds. */
export function bedrockEvent(type: string, body: Record<string, unknown>): Buffer {
  return eventStreamMessage(
    { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify({ ...body, p: "abcdefghijkl" }),
  );
}
