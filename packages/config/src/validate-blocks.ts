/**
 * Rules for blocks that several sections share: text that must not be blank, JSONPath lists,
 * transforms, inbound and outbound auth, outbound header names and values, Kafka security and
 * NATS credentials.
 */
import { isFramingHeader, isHeaderToken, JsonPathError, parseJsonPath } from '@queuebox/core';
import { displayPath, type Path, type Problems } from './problems.js';
import type { RawConfig, RawInboundAuth, RawTransform } from './schema.js';
import { httpUrlProblem } from './url-rules.js';
import { isBlank } from './values.js';

/** Reports blank text, unless the key already has a problem (a missing required key, say). */
export function requireText(problems: Problems, path: Path, value: string | null): void {
  if (value !== null && isBlank(value) && !problems.has(path))
    problems.add(path, 'must not be blank');
}

/** A JSONPath or list of JSONPaths: non-empty, and every path definite (spec §7.1). */
export function checkJsonPaths(
  problems: Problems,
  path: Path,
  paths: readonly string[] | null,
): void {
  if (paths === null || problems.has(path)) return;
  if (paths.length === 0) {
    problems.add(path, 'the list must not be empty; remove the key or name at least one JSONPath');
    return;
  }
  for (const text of paths) {
    if (isBlank(text)) {
      problems.add(path, 'must not hold a blank JSONPath');
      continue;
    }
    try {
      parseJsonPath(text);
    } catch (error: unknown) {
      if (!(error instanceof JsonPathError)) throw error;
      problems.add(
        path,
        error.problem === 'indefinite'
          ? `'${text}' is not a definite JSONPath: ${error.message}, so QueueBox cannot read one value from it; use a definite path such as '$.data.id'`
          : `'${text}' is not a valid JSONPath: ${error.message}`,
      );
    }
  }
}

export function checkTransform(
  problems: Problems,
  path: Path,
  transform: RawTransform | null,
): void {
  if (transform !== null) requireText(problems, [...path, 'expression'], transform.expression);
}

/** `bearer`, `api-key`, `hmac` on a source or the admin routes (spec §16.1). */
export function checkInboundAuth(
  problems: Problems,
  path: Path,
  auth: RawInboundAuth | null | undefined,
): void {
  if (auth === null || auth === undefined) return;
  switch (auth.type) {
    case 'bearer':
      requireText(problems, [...path, 'token'], auth.token.reveal());
      return;
    case 'api-key':
      requireText(problems, [...path, 'key'], auth.key.reveal());
      requireText(problems, [...path, 'headerName'], auth.headerName);
      return;
    case 'hmac': {
      requireText(problems, [...path, 'secret'], auth.secret.reveal());
      requireText(problems, [...path, 'headerName'], auth.headerName);
      requireText(problems, [...path, 'timestampHeader'], auth.timestampHeader);
      const format = auth.signaturePayloadFormat;
      if (
        (format === 'TIMESTAMP_DOT_BODY' || format === 'timestamp-dot-body') &&
        auth.timestampHeader === null
      ) {
        problems.add(
          [...path, 'signaturePayloadFormat'],
          `${format} needs ${displayPath([...path, 'timestampHeader'])}; every request would fail with a missing timestamp header, so set the timestamp header or use BODY`,
        );
      }
      return;
    }
  }
}

type RawDestinationAuth = NonNullable<
  Extract<RawConfig['destinations'][string], { type: 'http' }>['auth']
>;

/** `oauth2`, `basic`, `header` on an HTTP destination (spec §6.1). */
export function checkDestinationAuth(
  problems: Problems,
  path: Path,
  auth: RawDestinationAuth | null | undefined,
): void {
  if (auth === null || auth === undefined) return;
  switch (auth.type) {
    case 'oauth2': {
      requireText(problems, [...path, 'clientId'], auth.clientId);
      requireText(problems, [...path, 'clientSecret'], auth.clientSecret.reveal());
      const tokenUrl = [...path, 'tokenUrl'];
      const problem = problems.has(tokenUrl)
        ? undefined
        : httpUrlProblem(
            auth.tokenUrl,
            `set the client credentials in ${displayPath([...path, 'clientId'])} and ${displayPath([...path, 'clientSecret'])}`,
          );
      if (problem !== undefined) problems.add(tokenUrl, problem);
      return;
    }
    case 'basic':
      requireText(problems, [...path, 'username'], auth.username);
      return;
    case 'header': {
      requireText(problems, [...path, 'headerName'], auth.headerName);
      requireText(problems, [...path, 'headerValue'], auth.headerValue.reveal());
      const nameProblem = isBlank(auth.headerName) ? undefined : headerNameProblem(auth.headerName);
      if (nameProblem !== undefined) problems.add([...path, 'headerName'], nameProblem);
      const valueProblem = headerValueProblem(auth.headerValue.reveal());
      if (valueProblem !== undefined) problems.add([...path, 'headerValue'], valueProblem);
      return;
    }
  }
}

/** Why a header name cannot be configured, or undefined when it can. */
export function headerNameProblem(name: string): string | undefined {
  if (!isHeaderToken(name)) {
    return `'${name}' is not a valid header name; use letters, digits and !#$%&'*+-.^_\`|~ only`;
  }
  if (isFramingHeader(name.toLowerCase())) {
    return `'${name}' frames the request or the connection, which QueueBox does itself for every message; remove it`;
  }
  return undefined;
}

/** Why a header value cannot be configured (the value is not printed: it may be a secret). */
export function headerValueProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // Tab is allowed inside a value; every other control character breaks the header line.
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) {
      return 'must not hold a control character such as a line break (look for a trailing newline); HTTP cannot carry it';
    }
  }
  return undefined;
}

interface KafkaSecurityKeys {
  readonly securityProtocol: string;
  readonly saslMechanism: string | null;
  readonly saslUsername: string | null;
  readonly saslPassword: { reveal(): string } | null;
}

/** A `SASL_*` protocol needs a mechanism, a user name and a password (spec §6.3). */
export function checkKafkaSecurity(problems: Problems, path: Path, keys: KafkaSecurityKeys): void {
  if (!keys.securityProtocol.startsWith('SASL_')) return;
  const needs = `required by securityProtocol ${keys.securityProtocol}`;
  for (const [key, value] of [
    ['saslMechanism', keys.saslMechanism],
    ['saslUsername', keys.saslUsername],
    ['saslPassword', keys.saslPassword?.reveal() ?? null],
  ] as const) {
    if (value === null) problems.add([...path, key], needs);
    else requireText(problems, [...path, key], value);
  }
}

interface NatsCredentialKeys {
  readonly username: string | null;
  readonly password: unknown;
  readonly token: unknown;
}

/** User name and password go together; a token excludes a user name (spec §6.4). */
export function checkNatsCredentials(
  problems: Problems,
  path: Path,
  keys: NatsCredentialKeys,
): void {
  const user = displayPath([...path, 'username']);
  const password = displayPath([...path, 'password']);
  if (keys.username !== null && keys.password === null) {
    problems.add(
      [...path, 'password'],
      `required because ${user} is set; NATS takes the two together`,
    );
  }
  if (keys.password !== null && keys.username === null) {
    problems.add(
      [...path, 'username'],
      `required because ${password} is set; NATS takes the two together`,
    );
  }
  if (keys.token !== null && keys.username !== null) {
    problems.add(
      [...path, 'token'],
      `cannot be combined with ${user}; NATS accepts one of them, so remove one`,
    );
  }
}
