/**
 * A failed connect as a sentence that names what is wrong (virtual host missing, access refused,
 * authentication failed, TLS refused, nothing listening) instead of the client's protocol
 * trace. It names the host, port, virtual host and user, which are not secrets; the password is
 * never part of it, and the broker's or the TLS library's own text passes the sanitizer.
 */
import { sanitize, toError } from '@queuebox/core';
import type { RefusedOpen } from './handshake-refusal.js';

interface Target {
  readonly address: string;
  readonly vhost: string;
  readonly user: string;
  readonly tls: boolean;
}

/** What a connect to `url` that failed with `error` ran into. */
export function connectErrorText(error: unknown, url: string): string {
  const target = targetOf(url);
  const cause = toError(error) as RefusedOpen & { code?: unknown };
  const code = typeof cause.code === 'string' ? cause.code : '';
  const message = cause.message;
  const close = cause.handshakeClose;
  if (/login was refused/i.test(close?.replyText ?? message)) {
    return `authentication failed: the broker at ${target.address} refused the login of user '${target.user}' (wrong user name or password, or a mechanism the user may not use)`;
  }
  if (close !== undefined) {
    const reply = sanitize(close.replyText);
    if (/vhost .* not found/i.test(close.replyText)) {
      return `the virtual host '${target.vhost}' does not exist on the broker at ${target.address}: create it, or correct the path of the URL (the broker said: ${reply})`;
    }
    if (/access to vhost/i.test(close.replyText)) {
      return `access refused: user '${target.user}' has no permission on the virtual host '${target.vhost}' at ${target.address}; grant it (rabbitmqctl set_permissions) or use another user (the broker said: ${reply})`;
    }
    return `the broker at ${target.address} closed the connection while opening the virtual host '${target.vhost}': ${close.replyCode} ${reply}`;
  }
  if (isTlsFailure(code, message)) {
    return target.tls
      ? `TLS refused: the TLS handshake with ${target.address} failed (${tlsReason(code, message)}); check that the port speaks TLS (usually 5671) and that its certificate is trusted`
      : `TLS refused: ${target.address} answered with TLS where plain AMQP was asked for (${tlsReason(code, message)})`;
  }
  if (code === 'ECONNREFUSED')
    return `nothing accepts connections at ${target.address} (connection refused)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `the host of ${target.address} cannot be resolved (${code})`;
  if (!target.tls && /closed abruptly during opening handshake/i.test(message)) {
    return `the broker at ${target.address} closed the connection during the AMQP handshake; if that port expects TLS, use an amqps:// URL`;
  }
  return sanitize(message);
}

function isTlsFailure(code: string, message: string): boolean {
  return (
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_') ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code) ||
    /SSL routines|TLS|certificate/i.test(message)
  );
}

function tlsReason(code: string, message: string): string {
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'the port does not speak TLS';
  if (code !== '') return code;
  return sanitize(message.split('\n')[0] ?? message);
}

function targetOf(url: string): Target {
  try {
    const parsed = new URL(url);
    const tls = parsed.protocol === 'amqps:';
    const port = parsed.port === '' ? (tls ? '5671' : '5672') : parsed.port;
    const path = parsed.pathname.replace(/^\//, '');
    return {
      address: `${parsed.hostname}:${port}`,
      vhost: path === '' ? '/' : decodeURIComponent(path),
      user: parsed.username === '' ? 'guest' : decodeURIComponent(parsed.username),
      tls,
    };
  } catch {
    return { address: 'the broker', vhost: '/', user: 'guest', tls: false };
  }
}
