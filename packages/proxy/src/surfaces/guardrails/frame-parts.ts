import { jsonEventFrame } from "../event-stream.js";
import type { StreamItem } from "./guarded-events.js";

/**
 * The SSE bytes of a batch, in parts: kept frames as they came, the rest framed anew. Frames that
 * lay side by side in what upstream sent go out as one view of those bytes, and the parts are
 * sent one after the other, not copied together (a batch is often the frames a chunk held back
 * and the next chunk's: two parts).
 */
export function partsOf(items: readonly StreamItem[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  // The run so far: `runBytes` from `runStart` to `runEnd`, extended by each frame that follows it in the same memory.
  let runBytes: Uint8Array | undefined;
  let runStart = 0;
  let runEnd = 0;
  for (const item of items) {
    let bytes = item.bytes;
    let start = item.start ?? 0;
    let end = item.end ?? 0;
    if (!bytes) {
      bytes = item.frame ?? Buffer.from(jsonEventFrame(item.event, item.event.type));
      start = 0;
      end = bytes.byteLength;
    }
    // The same bytes read (most frames of a chunk) compare as they are; other bytes by where they lie in memory.
    if (runBytes === bytes && runEnd === start) {
      runEnd = end;
      continue;
    }
    if (runBytes && runBytes.buffer === bytes.buffer && runBytes.byteOffset + runEnd === bytes.byteOffset + start) {
      runEnd = bytes.byteOffset + end - runBytes.byteOffset;
      continue;
    }
    if (runBytes) parts.push(viewOf(runBytes, runStart, runEnd));
    runBytes = bytes;
    runStart = start;
    runEnd = end;
  }
  if (runBytes) parts.push(viewOf(runBytes, runStart, runEnd));
  return parts;
}

/** `bytes` from `start` to `end`: `bytes` itself when that is all of it. A view, not `subarray` (a Buffer's own costs several times more). */
function viewOf(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return start === 0 && end === bytes.byteLength ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start);
}
