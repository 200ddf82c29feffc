import { QueueBoxError, type HeaderFilterConfig, type HeaderFilterRule } from '@queuebox/core';
import { describe, expect, it } from 'vitest';
import { compileHeaderFilter, type LowerCaseHeaderLookup } from './header-filter.js';

const equals = (header: string, value: string): HeaderFilterRule => ({
  header,
  test: { kind: 'equals', value },
});
const oneOf = (header: string, values: string[]): HeaderFilterRule => ({
  header,
  test: { kind: 'in', values },
});
const matches = (header: string, glob: string): HeaderFilterRule => ({
  header,
  test: { kind: 'matches', glob },
});
const exists = (header: string): HeaderFilterRule => ({ header, test: { kind: 'exists' } });

/** The routes hand the filter lower-cased names; this mirrors that. */
function lookup(values: Record<string, string>): LowerCaseHeaderLookup {
  const map = new Map(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
  return (name) => map.get(name);
}

function filter(config: Partial<HeaderFilterConfig>) {
  return compileHeaderFilter({ require: [], exclude: [], ...config }, 'sources.s.filter');
}

describe('header filter', () => {
  it('passes everything without a filter block', () => {
    expect(compileHeaderFilter(null, 'sources.s.filter').evaluate(lookup({}))).toEqual({
      pass: true,
    });
  });

  it('equals: exact and case-sensitive value, header name in any case', () => {
    const f = filter({ require: [equals('X-Env', 'prod')] });
    expect(f.evaluate(lookup({ 'x-env': 'prod' }))).toEqual({ pass: true });
    expect(f.evaluate(lookup({ 'X-ENV': 'prod' }))).toEqual({ pass: true });
    expect(f.evaluate(lookup({ 'x-env': 'Prod' }))).toEqual({
      pass: false,
      rule: 'require[0] (X-Env equals)',
    });
    expect(f.evaluate(lookup({ 'x-env': 'prod ' }))).toEqual({
      pass: false,
      rule: 'require[0] (X-Env equals)',
    });
    expect(f.evaluate(lookup({}))).toEqual({ pass: false, rule: 'require[0] (X-Env equals)' });
  });

  it('in: any listed value', () => {
    const f = filter({ require: [oneOf('X-Event', ['a', 'b'])] });
    expect(f.evaluate(lookup({ 'x-event': 'b' }))).toEqual({ pass: true });
    expect(f.evaluate(lookup({ 'x-event': 'c' }))).toEqual({
      pass: false,
      rule: 'require[0] (X-Event in)',
    });
    expect(f.evaluate(lookup({}))).toEqual({ pass: false, rule: 'require[0] (X-Event in)' });
  });

  it('matches: topic glob, named with its glob but never with the value', () => {
    const f = filter({ require: [matches('X-Event', 'order.*')] });
    expect(f.evaluate(lookup({ 'x-event': 'order.paid' }))).toEqual({ pass: true });
    const verdict = f.evaluate(lookup({ 'x-event': 'order.item.added' }));
    expect(verdict).toEqual({ pass: false, rule: 'require[0] (X-Event matches order.*)' });
    expect(JSON.stringify(verdict)).not.toContain('order.item.added');
    expect(f.evaluate(lookup({}))).toEqual({
      pass: false,
      rule: 'require[0] (X-Event matches order.*)',
    });
  });

  it('exists: present, even when empty', () => {
    const f = filter({ require: [exists('X-Tenant')] });
    expect(f.evaluate(lookup({ 'x-tenant': '' }))).toEqual({ pass: true });
    expect(f.evaluate(lookup({}))).toEqual({ pass: false, rule: 'require[0] (X-Tenant exists)' });
  });

  it('requires all rules and excludes on any, reporting the first failure in order', () => {
    const f = filter({
      require: [exists('X-Tenant'), equals('X-Env', 'prod')],
      exclude: [equals('X-Test', 'true'), matches('X-Event', 'internal.**')],
    });
    expect(f.evaluate(lookup({ 'x-tenant': 't', 'x-env': 'prod' }))).toEqual({ pass: true });
    expect(f.evaluate(lookup({ 'x-env': 'dev' }))).toEqual({
      pass: false,
      rule: 'require[0] (X-Tenant exists)',
    });
    expect(f.evaluate(lookup({ 'x-tenant': 't', 'x-env': 'dev' }))).toEqual({
      pass: false,
      rule: 'require[1] (X-Env equals)',
    });
    expect(
      f.evaluate(
        lookup({ 'x-tenant': 't', 'x-env': 'prod', 'x-test': 'true', 'x-event': 'internal.a.b' }),
      ),
    ).toEqual({
      pass: false,
      rule: 'exclude[0] (X-Test equals)',
    });
    expect(
      f.evaluate(lookup({ 'x-tenant': 't', 'x-env': 'prod', 'x-event': 'internal.a.b' })),
    ).toEqual({
      pass: false,
      rule: 'exclude[1] (X-Event matches internal.**)',
    });
  });

  it('lets a message pass an exclude rule whose header is absent', () => {
    const f = filter({
      exclude: [equals('X-Test', 'true'), oneOf('X-A', ['1']), matches('X-B', '**')],
    });
    expect(f.evaluate(lookup({}))).toEqual({ pass: true });
  });

  it('drops on an exclude exists rule (the way to say "must not exist")', () => {
    const f = filter({ exclude: [exists('X-Replay')] });
    expect(f.evaluate(lookup({ 'x-replay': '1' }))).toEqual({
      pass: false,
      rule: 'exclude[0] (X-Replay exists)',
    });
    expect(f.evaluate(lookup({}))).toEqual({ pass: true });
  });

  it('stops the start on a glob that does not compile, naming the key', () => {
    try {
      filter({ exclude: [exists('X-A'), matches('X-Event', 'a.***')] });
      expect.fail('no error');
    } catch (error: unknown) {
      expect(error).toBeInstanceOf(QueueBoxError);
      expect((error as QueueBoxError).code).toBe('config_invalid');
      expect((error as QueueBoxError).message).toMatch(
        /^sources\.s\.filter\.exclude\[1\]\.matches: /,
      );
    }
  });
});
