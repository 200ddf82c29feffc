import { describe, expect, it } from 'vitest';
import { redactReason, redactText } from './redact.js';

describe('redactText', () => {
  it('masks the configured credentials wherever they appear', () => {
    expect(redactText('auth failed for hunter2 at hunter2', ['hunter2'])).toBe(
      'auth failed for *** at ***',
    );
  });

  it('reduces URLs to scheme and host', () => {
    expect(redactText('cannot reach postgres://qb:pw@db:5432/orders?sslmode=require now')).toBe(
      'cannot reach postgres://db:5432 now',
    );
    expect(redactText('url jdbc:postgresql://db.internal:5432/orders?password=x')).toBe(
      'url jdbc:postgresql://db.internal:5432',
    );
  });

  it('applies the core sanitizer to the rest', () => {
    const out = redactText('host=db password=pw user=qb');
    expect(out).not.toContain('pw ');
    expect(out).toContain('[REDACTED]');
    expect(redactText('x'.repeat(5000))).toHaveLength(2000);
  });
});

describe('redactReason', () => {
  it('gives the sanitized Type: message form', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(redactReason(error)).toBe('Error: connect ECONNREFUSED 127.0.0.1:1');
  });

  it('uses the error code when the message is empty', () => {
    const error = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
    expect(redactReason(error)).toBe('AggregateError: ECONNREFUSED');
  });

  it('masks the secrets in the cause chain too', () => {
    const error = new Error('outer', { cause: new Error('password was s3cr3t-value') });
    expect(redactReason(error, ['s3cr3t-value'])).not.toContain('s3cr3t-value');
  });
});
