/**
 * Keeps the broker's own words when it closes a connection during the AMQP handshake. A virtual
 * host that does not exist and a user without access to it both end `connection.open` with a
 * `connection.close` (530 NOT_ALLOWED) whose reply text says which, but amqplib (0.10 to 2.3)
 * reports only "Expected ConnectionOpenOk; got <ConnectionClose channel:0>". Its handshake runs
 * inside `connect()`, before any object reaches the caller, so the one place to read the close is
 * the Connection class's `open`: wrapped here once, it watches the frames of its own handshake and
 * hands the close's reply code and text on with the error. amqplib itself is used as published.
 *
 * amqplib 2's `exports` map hides `lib/`, so the class is loaded by the file's own path, next to
 * the package's entry point: the same file, hence the same module, as amqplib's own `require`. If
 * that file or its `open` is not there (a future layout), connects work as before and a refusal is
 * reported with amqplib's words only.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** amqplib's method id of connection.close (class 10, method 50). */
const CONNECTION_CLOSE = (10 << 16) | 50;

/** The reply of a connection.close the broker sent during the handshake. */
export interface HandshakeClose {
  readonly replyCode: number;
  readonly replyText: string;
}

/** An error from `connect()` that carries the broker's close, when there was one. */
export type RefusedOpen = Error & { readonly handshakeClose?: HandshakeClose };

type OpenCallback = (error: Error | null, ok?: unknown) => void;

interface ConnectionPrototype {
  open: (this: ConnectionPrototype, fields: unknown, callback?: OpenCallback) => unknown;
  recvFrame: (this: ConnectionPrototype) => unknown;
  __queueboxOpenWrapped?: true;
}

let installed = false;

/** Wraps amqplib's Connection#open once per process; later calls do nothing. */
export function keepHandshakeRefusals(): void {
  if (installed) return;
  installed = true;
  const prototype = connectionPrototype();
  if (prototype === undefined || typeof prototype.open !== 'function') return;
  if (prototype.__queueboxOpenWrapped) return;
  prototype.__queueboxOpenWrapped = true;
  const open = prototype.open;
  prototype.open = function (this: ConnectionPrototype, fields, callback) {
    let close: HandshakeClose | undefined;
    const receive = this.recvFrame;
    // An own property for the handshake only: the prototype's method is back once it ends.
    this.recvFrame = function (this: ConnectionPrototype) {
      const frame = receive.call(this) as { id?: number; fields?: Record<string, unknown> } | false;
      if (frame && frame.id === CONNECTION_CLOSE && frame.fields !== undefined) {
        const { replyCode, replyText } = frame.fields;
        if (typeof replyCode === 'number' && typeof replyText === 'string')
          close = { replyCode, replyText };
      }
      return frame;
    };
    return open.call(this, fields, (error, ok) => {
      delete (this as Partial<ConnectionPrototype>).recvFrame;
      if (error !== null && close !== undefined)
        Object.defineProperty(error, 'handshakeClose', { value: close, enumerable: false });
      callback?.(error, ok);
    });
  };
}

/** amqplib's Connection.prototype; undefined when its file is not where 0.10 to 2.3 keep it. */
function connectionPrototype(): ConnectionPrototype | undefined {
  try {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('amqplib');
    const { Connection } = require(join(dirname(entry), 'lib', 'connection.js')) as {
      Connection?: { prototype: ConnectionPrototype };
    };
    return Connection?.prototype;
  } catch {
    return undefined;
  }
}
