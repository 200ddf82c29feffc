/**
 * Opening and closing one AMQP connection, for the publisher and the source alike. amqplib's
 * connection and channel objects are event emitters that raise `error` on a broker or network
 * failure; an `error` without a listener crashes the process, so every object opened here gets
 * one before anything else can happen on it.
 */
import { connect, type ChannelModel } from 'amqplib';
import { sanitize, toError } from '@queuebox/core';
import { connectErrorText } from './connect-error.js';
import { keepHandshakeRefusals } from './handshake-refusal.js';

/** Bounds the TCP connect and the AMQP handshake of one connection attempt. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** How long a graceful close may take before the socket is destroyed. */
export const CLOSE_GRACE_MS = 1_000;

export interface OpenOptions {
  /** Shown as the connection name in the RabbitMQ management UI: `queuebox <role> <name>`. */
  readonly connectionName: string;
  readonly timeoutMs?: number;
}

/** Connects; rejects with a sanitized error (the URL carries the password and is never printed). */
export async function openConnection(url: string, options: OpenOptions): Promise<ChannelModel> {
  keepHandshakeRefusals();
  try {
    return await connect(url, {
      timeout: options.timeoutMs ?? CONNECT_TIMEOUT_MS,
      noDelay: true,
      clientProperties: { connection_name: options.connectionName },
    });
  } catch (error: unknown) {
    throw new Error(`Connecting to RabbitMQ failed: ${connectErrorText(error, url)}`, {
      cause: error,
    });
  }
}

/**
 * Closes gracefully within CLOSE_GRACE_MS, then destroys the socket: a broker that stopped
 * answering never holds a shutdown. Never rejects.
 */
export async function closeConnection(model: ChannelModel): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = model.close().then(
    () => true,
    () => false,
  );
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CLOSE_GRACE_MS);
    timer.unref();
  });
  const closed = await Promise.race([graceful, timedOut]);
  clearTimeout(timer);
  if (!closed) socketOf(model)?.destroy();
}

/** amqplib keeps the socket as `connection.stream`; its typings do not declare it. */
function socketOf(model: ChannelModel): { destroy(): void } | undefined {
  const stream = (model.connection as unknown as { stream?: { destroy?: unknown } }).stream;
  return typeof stream?.destroy === 'function' ? (stream as { destroy(): void }) : undefined;
}

/** A broker or network error as one sanitized line. */
export function errorText(error: unknown): string {
  return sanitize(toError(error).message);
}
