/**
 * What a rule across keys sees of the parse, and the rules of blocks that several sections share
 * whose texts name other keys (the HMAC payload format, an http(s) URL), and the rules a broker's
 * block reports to. A value with a problem (or below a block that could not be read) is not what its
 * type says, so a rule asks `has` before it reads one, as the reference's rules stay quiet on a
 * broken value instead of piling a second line onto the first.
 */
import type { ConfigRules, Secret } from '@queuebox/core';
import type * as v from 'valibot';
import { comparable, displayPath, isPrefix, type Path } from '../problems.js';
import type { RawInboundAuth } from '../schema/config.js';
import { atParent } from '../schema/kit.js';
import { httpUrlProblem } from '../values.js';

export interface Rules {
  /** Reports a problem at `path`. */
  add(path: Path, message: string): void;
  /** A problem at or below `path`, or a block above it that could not be read. */
  has(path: Path): boolean;
  /** A block above or at `path` that could not be read: nothing below it is known. */
  blocked(path: Path): boolean;
}

export function rulesOver(
  issues: () => readonly v.BaseIssue<unknown>[],
  addIssue: (info: { message: string; path: [v.IssuePathItem, ...v.IssuePathItem[]] }) => void,
): Rules {
  const pathOf = (issue: v.BaseIssue<unknown>): string[] => {
    const keys = (issue.path ?? []).map((item) => item.key);
    return comparable((atParent.has(issue) ? keys.slice(0, -1) : keys) as Path);
  };
  const blocked = (path: Path): boolean => {
    const at = comparable(path);
    return issues().some((issue) => issue.kind === 'schema' && isPrefix(pathOf(issue), at));
  };
  return {
    add: (path, message) => {
      const items = path.map(
        (key) => ({ type: 'unknown', origin: 'value', key }) as v.IssuePathItem,
      );
      addIssue({ message, path: items as [v.IssuePathItem, ...v.IssuePathItem[]] });
    },
    has: (path) => {
      const at = comparable(path);
      return issues().some((issue) => isPrefix(at, pathOf(issue))) || blocked(path);
    },
    blocked,
  };
}

/** Reports blank text, unless the key already has a problem (a missing required key, say). */
export function requireText(rules: Rules, path: Path, value: unknown): void {
  if (typeof value === 'string' && value.trim() === '' && !rules.has(path))
    rules.add(path, 'must not be blank');
}

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

/** What a block with `secret` or `secrets` holds after the parse. */
interface SecretKeys {
  readonly secret: Secret | null;
  readonly secrets: readonly Secret[] | null;
}

/**
 * Exactly one of `secret` and `secrets`; with `whsec` each must be a Standard Webhooks secret,
 * whose HMAC key is the base64 after `whsec_` (a secret that is no base64 signs with the wrong
 * key, and every receiver would reject every request).
 */
export function checkSecrets(rules: Rules, path: Path, block: SecretKeys, whsec: boolean): void {
  if (rules.blocked(path) || rules.has([...path, 'secret']) || rules.has([...path, 'secrets']))
    return;
  const [one, many] = [displayPath([...path, 'secret']), displayPath([...path, 'secrets'])];
  if (block.secret === null && block.secrets === null) {
    rules.add([...path, 'secret'], `required; set ${one}, or ${many} (a list) during a rotation`);
    return;
  }
  if (block.secret !== null && block.secrets !== null) {
    rules.add(
      [...path, 'secrets'],
      `cannot be combined with ${one}; put every secret in ${many}, or keep only ${one}`,
    );
    return;
  }
  if (!whsec) return;
  const written = block.secrets ?? (block.secret === null ? [] : [block.secret]);
  written.forEach((secret, index) => {
    const key = block.secrets === null ? [...path, 'secret'] : [...path, 'secrets', index];
    if (!isWebhookSecret(secret.reveal())) {
      rules.add(
        key,
        "is not a Standard Webhooks secret; write 'whsec_' followed by the base64 of the key (the value is not printed)",
      );
    }
  });
}

const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/** `whsec_<base64>` (the prefix may be left out, as the Standard Webhooks libraries accept). */
export function isWebhookSecret(secret: string): boolean {
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  return body.length >= 4 && BASE64.test(body);
}

/** An absolute http(s) URL without credentials (spec §6.1, §16.2); `hint` says where they go. */
export function checkHttpUrl(rules: Rules, path: Path, url: string, hint: string): void {
  if (rules.has(path)) return;
  const problem = httpUrlProblem(url, hint);
  if (problem !== undefined) rules.add(path, problem);
}

/** The rules as a broker's block sees them (core's `ConfigRules`). */
export function rulesForBlock(rules: Rules): ConfigRules {
  return {
    add: (path, message) => rules.add(path, message),
    has: (path) => rules.has(path),
    display: displayPath,
    requireText: (path, value) => requireText(rules, path, value),
  };
}
