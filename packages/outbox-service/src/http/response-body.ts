/**
 * Response bodies are always consumed or destroyed: an unread body holds its socket, and the
 * pool then opens new connections until it runs out.
 */

/** What undici's response body offers; kept structural so tests and callers need no undici types. */
export interface ResponseBody extends AsyncIterable<Uint8Array> {
  dump(options?: { limit: number; signal?: AbortSignal }): Promise<void>;
}

/** Bytes a success response may carry before the socket is closed instead of drained. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Discards a success body. Errors are ignored: the receiver already accepted the message, so
 * a broken body must not turn a delivery into a failure (and a duplicate on retry).
 */
export async function discardBody(body: ResponseBody, signal: AbortSignal): Promise<void> {
  try {
    await body.dump({ limit: DRAIN_LIMIT_BYTES, signal });
  } catch {
    // Nothing to do: dump destroys the stream (and so the socket) when it fails.
  }
}

/**
 * Reads at most a little more than `maxBytes`. A longer body is destroyed (closing its socket)
 * rather than downloaded; a body that breaks off (timeout, reset) yields what arrived.
 */
export async function readBodyPrefix(body: ResponseBody, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      // Leaving the loop destroys the stream, which is what a body this long deserves.
      if (size > maxBytes) break;
    }
  } catch {
    // Report the status with whatever part of the body arrived.
  }
  return Buffer.concat(chunks, size);
}
