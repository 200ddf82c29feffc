/**
 * Rules of blocks that several sections share and whose texts name other keys: the HMAC payload
 * format, the OAuth2 token URL, Kafka security and NATS credentials. Checks of one value are in
 * `schema/checks.ts`.
 */
import type { Secret } from '@queuebox/core';
import { displayPath, type Path } from '../problems.js';
import type { RawDestination, RawInboundAuth } from '../schema/config.js';
import { httpUrlProblem } from '../url-rules.js';
import { requireText, type Rules } from './context.js';

/** `bearer`, `api-key`, `hmac` on a source or the admin routes (spec §16.1). */
export function checkInboundAuth(rules: Rules, path: Path, auth: RawInboundAuth | null): void {
  if (auth?.type !== 'hmac' || rules.blocked(path)) return;
  const format = rules.has([...path, 'signaturePayloadFormat'])
    ? null
    : auth.signaturePayloadFormat;
  if (
    (format === 'TIMESTAMP_DOT_BODY' || format === 'timestamp-dot-body') &&
    auth.timestampHeader === null
  ) {
    rules.add(
      [...path, 'signaturePayloadFormat'],
      `${format} needs ${displayPath([...path, 'timestampHeader'])}; every request would fail with a missing timestamp header, so set the timestamp header or use BODY`,
    );
  }
}

type DestinationAuth = NonNullable<Extract<RawDestination, { type: 'http' }>['auth']>;

/** An absolute http(s) URL without credentials (spec §6.1, §16.2); `hint` says where they go. */
export function checkHttpUrl(rules: Rules, path: Path, url: string, hint: string): void {
  if (rules.has(path)) return;
  const problem = httpUrlProblem(url, hint);
  if (problem !== undefined) rules.add(path, problem);
}

/** `oauth2`, `basic`, `header` on an HTTP destination (spec §6.1). */
export function checkDestinationAuth(rules: Rules, path: Path, auth: DestinationAuth | null): void {
  if (auth?.type !== 'oauth2' || rules.blocked(path)) return;
  const credentials = `set the client credentials in ${displayPath([...path, 'clientId'])} and ${displayPath([...path, 'clientSecret'])}`;
  checkHttpUrl(rules, [...path, 'tokenUrl'], auth.tokenUrl, credentials);
}

interface KafkaSecurityKeys {
  readonly securityProtocol: string;
  readonly saslMechanism: string | null;
  readonly saslUsername: string | null;
  readonly saslPassword: Secret | null;
}

/** A `SASL_*` protocol needs a mechanism, a user name and a password (spec §6.3). */
export function checkKafkaSecurity(rules: Rules, path: Path, keys: KafkaSecurityKeys): void {
  if (rules.has([...path, 'securityProtocol']) || !keys.securityProtocol.startsWith('SASL_'))
    return;
  const needs = `required by securityProtocol ${keys.securityProtocol}`;
  for (const [key, value] of [
    ['saslMechanism', keys.saslMechanism],
    ['saslUsername', keys.saslUsername],
    ['saslPassword', keys.saslPassword?.reveal() ?? null],
  ] as const) {
    if (rules.has([...path, key])) continue;
    if (value === null) rules.add([...path, key], needs);
    else requireText(rules, [...path, key], value);
  }
}

interface NatsCredentialKeys {
  readonly username: string | null;
  readonly password: unknown;
  readonly token: unknown;
}

/** User name and password go together; a token excludes a user name (spec §6.4). */
export function checkNatsCredentials(rules: Rules, path: Path, keys: NatsCredentialKeys): void {
  const user = displayPath([...path, 'username']);
  const password = displayPath([...path, 'password']);
  if (keys.username !== null && keys.password === null) {
    rules.add(
      [...path, 'password'],
      `required because ${user} is set; NATS takes the two together`,
    );
  }
  if (keys.password !== null && keys.username === null) {
    rules.add(
      [...path, 'username'],
      `required because ${password} is set; NATS takes the two together`,
    );
  }
  if (keys.token !== null && keys.username !== null) {
    rules.add(
      [...path, 'token'],
      `cannot be combined with ${user}; NATS accepts one of them, so remove one`,
    );
  }
}
