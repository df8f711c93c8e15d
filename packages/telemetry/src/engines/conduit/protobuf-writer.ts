/**
 * The few protobuf primitives OTLP needs, written into one growing buffer. Nested messages reserve
 * one length byte and move their content only in the rare case it is 128 bytes or more, so a span
 * is encoded in one pass without building a message tree first.
 */
const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH = 2;
const WIRE_FIXED32 = 5;
const TWO_32 = 4294967296;

const varintSize = (value: number): number => (value < 128 ? 1 : value < 16384 ? 2 : value < 2097152 ? 3 : value < 268435456 ? 4 : 5);

export class ProtobufWriter {
  buffer: Buffer;
  position = 0;

  constructor(initialBytes = 4096) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  private ensure(bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.position + bytes));
    this.buffer.copy(grown, 0, 0, this.position);
    this.buffer = grown;
  }

  /** A non-negative integer up to 2^53. */
  varint(value: number): void {
    this.ensure(10);
    const buffer = this.buffer;
    while (value >= 0x80000000) {
      buffer[this.position++] = (value % 128) | 128;
      value = Math.floor(value / 128);
    }
    while (value > 127) {
      buffer[this.position++] = (value & 127) | 128;
      value >>>= 7;
    }
    buffer[this.position++] = value;
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  uint(field: number, value: number): void {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  /** int64 of a safe integer; a negative one takes ten bytes (two's complement), as protobuf wants. */
  int64(field: number, value: number): void {
    if (value >= 0) {
      this.uint(field, value);
      return;
    }
    this.tag(field, WIRE_VARINT);
    let rest = BigInt.asUintN(64, BigInt(value));
    this.ensure(10);
    while (rest > 127n) {
      this.buffer[this.position++] = Number(rest & 127n) | 128;
      rest >>= 7n;
    }
    this.buffer[this.position++] = Number(rest);
  }

  double(field: number, value: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    this.position = this.buffer.writeDoubleLE(value, this.position);
  }

  /** Unix nanoseconds given as whole milliseconds and the nanoseconds past them, without a bigint. */
  fixed64Nanos(field: number, milliseconds: number, nanoseconds: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    // ms × 10^6 + ns as high·2^32 + low, every step within a double's exact integers.
    const msHigh = Math.floor(milliseconds / 65536);
    const scaledHigh = msHigh * 1e6;
    const scaledLow = (milliseconds - msHigh * 65536) * 1e6 + nanoseconds;
    const top = Math.floor(scaledHigh / 65536);
    const carry = (scaledHigh - top * 65536) * 65536 + scaledLow;
    this.buffer.writeUInt32LE(carry % TWO_32, this.position);
    this.buffer.writeUInt32LE(top + Math.floor(carry / TWO_32), this.position + 4);
    this.position += 8;
  }

  fixed32(field: number, value: number): void {
    this.tag(field, WIRE_FIXED32);
    this.ensure(4);
    this.position = this.buffer.writeUInt32LE(value, this.position);
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, WIRE_LENGTH);
    this.varint(value.length);
    this.ensure(value.length);
    this.buffer.set(value, this.position);
    this.position += value.length;
  }

  /** Bytes encoded beforehand (a field with its tag): short ones copied by a loop, as `string` copies ASCII. */
  raw(bytes: Uint8Array): void {
    const length = bytes.length;
    this.ensure(length);
    if (length > 64) {
      this.buffer.set(bytes, this.position);
      this.position += length;
      return;
    }
    const buffer = this.buffer;
    let position = this.position;
    for (let index = 0; index < length; index++) buffer[position++] = bytes[index] as number;
    this.position = position;
  }

  string(field: number, value: string): void {
    this.tag(field, WIRE_LENGTH);
    // Attribute keys and most values are short ASCII: copied by a loop, which costs less than a
    // call into `Buffer#write`; anything else goes through it.
    if (value.length < 256 && this.ascii(value)) return;
    const length = Buffer.byteLength(value, "utf8");
    this.varint(length);
    this.ensure(length);
    this.position += this.buffer.write(value, this.position, "utf8");
  }

  /** Writes `value` with its length if it is all ASCII; else writes nothing and says so. */
  private ascii(value: string): boolean {
    const start = this.position;
    this.varint(value.length);
    this.ensure(value.length);
    const buffer = this.buffer;
    let position = this.position;
    for (let index = 0; index < value.length; index++) {
      const code = value.charCodeAt(index);
      if (code > 127) {
        this.position = start;
        return false;
      }
      buffer[position++] = code;
    }
    this.position = position;
    return true;
  }

  /** Opens a nested message (or packed field) `field`; pass the result to `end`. */
  begin(field: number): number {
    this.tag(field, WIRE_LENGTH);
    this.ensure(1);
    return ++this.position;
  }

  end(start: number): void {
    const length = this.position - start;
    const size = varintSize(length);
    if (size > 1) {
      this.ensure(size - 1);
      this.buffer.copyWithin(start + size - 1, start, this.position);
    }
    const after = this.position + size - 1;
    this.position = start - 1;
    this.varint(length);
    this.position = after;
  }

  /** A copy of what was written since `reset()`. */
  take(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.position));
  }

  reset(): void {
    this.position = 0;
  }

  /** Drops the first `bytes` written; what follows moves to the front. */
  consume(bytes: number): void {
    this.buffer.copyWithin(0, bytes, this.position);
    this.position -= bytes;
  }
}
