import { sanitize, type AppConfig, type Headers } from '@queuebox/core';
import { CREDENTIAL_HEADERS, neverStoredHeaders } from '@queuebox/inbox-service';

const REDACTED = '[REDACTED]';

/**
 * The header names whose whole value the console never shows, lower-cased: the credential
 * headers, cookies both ways, and every header an auth of this configuration reads
 * or a sender's scheme signs with (a source's or the admin routes'). A stored row can carry one when an application wrote
 * it into an outbox row itself.
 */
export function secretHeaderNames(config: AppConfig): ReadonlySet<string> {
  const names = new Set([...CREDENTIAL_HEADERS, 'set-cookie', 'x-api-key', 'x-signature']);
  const auths = [
    config.admin.auth,
    ...Object.values(config.sources).map((s) => (s.type === 'http' ? s.auth : null)),
  ];
  for (const auth of auths) for (const name of neverStoredHeaders(auth)) names.add(name);
  return names;
}

/**
 * A row's headers as the console shows them: secret names masked whole, every other value
 * through the error sanitizer (§16.4), which masks a bearer token, a URL's password or a
 * `token=`/`password=` pair inside any value, and under any name it takes for a credential.
 */
export function redactHeaders(headers: Headers, secret: ReadonlySet<string>): Headers {
  const shown: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (secret.has(name.toLowerCase())) {
      shown[name] = REDACTED;
      continue;
    }
    const text = sanitize(`${name}=${String(value)}`);
    shown[name] = text.startsWith(`${name}=`) ? text.slice(name.length + 1) : REDACTED;
  }
  return shown;
}
