/** A Node readable no one has read yet (an `IncomingMessage`), as far as reading it by events needs. */
export interface UnreadNodeStream extends AsyncIterable<Uint8Array> {
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
}

/** True for a Node stream not yet flowing, paused, ended or destroyed: the ones `readEventsUpTo` may read. */
export function isUnreadNodeStream(stream: AsyncIterable<Uint8Array>): stream is UnreadNodeStream {
  const candidate = stream as Partial<UnreadNodeStream> & {
    readableFlowing?: boolean | null;
    destroyed?: boolean;
    readableEnded?: boolean;
  };
  return (
    typeof candidate.on === "function" &&
    typeof candidate.removeListener === "function" &&
    typeof candidate.pause === "function" &&
    candidate.readableFlowing === null &&
    candidate.destroyed === false &&
    candidate.readableEnded === false
  );
}

/** What `readEventsUpTo` read: every chunk, and whether it stopped past the limit (then the stream is paused there). */
export interface EventsRead {
  chunks: Buffer[];
  overLimit: boolean;
}

/**
 * Reads a Node stream through its events until it ends or passes `limit` bytes: its async
 * iterator costs an async generator, an end-of-stream watcher and a promise per chunk. Past the
 * limit the stream is paused, never destroyed (a 413 still has to go out on its socket, or the
 * rest is streamed on from there); a stream that fails or closes before its end rejects, as the
 * iterator does.
 *
 * @example
 * const { chunks, overLimit } = await readEventsUpTo(request, 1024 * 1024);
 */
export function readEventsUpTo(stream: UnreadNodeStream, limit: number): Promise<EventsRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      stream.removeListener("data", onData);
      stream.removeListener("end", onEnd);
      stream.removeListener("error", onError);
      stream.removeListener("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size <= limit) return;
      stop();
      stream.pause();
      resolve({ chunks, overLimit: true });
    };
    const onEnd = () => {
      stop();
      resolve({ chunks, overLimit: false });
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    };
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.on("close", onClose);
  });
}
