import { describe, expect, it } from 'vitest';
import type { HttpDestinationConfig, HttpSourceConfig } from '@queuebox/core';
import { explainConfig } from '../test/brokers.js';
import { DB_ENV, loadYaml, problems } from '../test/load.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const destination = (signing: string, extra = ''): string =>
  `destinations:\n  d:\n    type: http\n    baseUrl: https://partner.example\n    signing: ${signing}\n${extra}`;

describe('destinations.<name>.signing', () => {
  it('takes one secret or a list during a rotation, as a list of secrets', () => {
    const one = loadYaml(destination(`{scheme: standard-webhooks, secret: ${SECRET}}`));
    const d = one.destinations.d as HttpDestinationConfig;
    expect(d.signing?.scheme).toBe('standard-webhooks');
    expect(d.signing?.secrets.map((s) => s.reveal())).toEqual([SECRET]);
    const two = loadYaml(
      destination(`{scheme: standard-webhooks, secrets: [${SECRET}, whsec_AAAA]}`),
    );
    expect(
      (two.destinations.d as HttpDestinationConfig).signing?.secrets.map((s) => s.reveal()),
    ).toEqual([SECRET, 'whsec_AAAA']);
    const none = loadYaml('destinations:\n  d: {type: http, baseUrl: https://partner.example}\n');
    expect((none.destinations.d as HttpDestinationConfig).signing).toBeNull();
  });

  it('names the key of each problem', () => {
    expect(problems(destination('{scheme: standard-webhooks}'))).toEqual([
      'destinations.d.signing.secret: required; set destinations.d.signing.secret, or destinations.d.signing.secrets (a list) during a rotation',
    ]);
    expect(problems(destination(`{scheme: standard-webhooks, secret: a, secrets: [b]}`))).toEqual([
      'destinations.d.signing.secrets: cannot be combined with destinations.d.signing.secret; put every secret in destinations.d.signing.secrets, or keep only destinations.d.signing.secret',
    ]);
    expect(
      problems(destination(`{scheme: standard-webhooks, secrets: [${SECRET}, "not base64!"]}`)),
    ).toEqual([
      "destinations.d.signing.secrets[1]: is not a Standard Webhooks secret; write 'whsec_' followed by the base64 of the key (the value is not printed)",
    ]);
    expect(problems(destination(`{scheme: hmac, secret: ${SECRET}}`))).toEqual([
      "destinations.d.signing.scheme: 'hmac' is not one of standard-webhooks",
    ]);
    expect(problems(destination(`{secret: ${SECRET}}`))[0]).toMatch(
      /^destinations\.d\.signing\.scheme: required/,
    );
    expect(problems(destination(`{scheme: standard-webhooks, secrets: []}`))).toEqual([
      'destinations.d.signing.secrets: the list must not be empty',
    ]);
  });

  it('refuses a static header the signature owns', () => {
    expect(
      problems(
        destination(
          `{scheme: standard-webhooks, secret: ${SECRET}}`,
          '    headers: {Webhook-Id: x}\n',
        ),
      ),
    ).toEqual([
      "destinations.d.headers.Webhook-Id: 'Webhook-Id' is a header QueueBox sets itself when destinations.d.signing is set, so this value would never be sent; remove it",
    ]);
    // Without signing the header is an ordinary static header, as in 0.8.1.
    expect(
      problems(
        'destinations:\n  d: {type: http, baseUrl: https://p.example, headers: {Webhook-Id: x}}\n',
      ),
    ).toEqual([]);
  });

  it('is an HTTP key: a broker destination refuses it', () => {
    const [problem] = problems(
      `destinations:\n  k: {type: kafka, bootstrapServers: k:9092, topic: t, signing: {scheme: standard-webhooks, secret: ${SECRET}}}\n`,
    );
    expect(problem).toMatch(/^destinations\.k\.signing: unknown key for type kafka/);
  });
});

const source = (auth: string, extra = ''): string =>
  `sources:\n  s: {path: /s, consumption: pull, auth: ${auth}${extra}}\n`;

function httpSourceOf(yaml: string): HttpSourceConfig {
  return loadYaml(yaml).sources.s as HttpSourceConfig;
}

describe('sources.<name>.auth: the senders’ schemes', () => {
  it('takes the event id as the idempotency key where the sender has one', () => {
    const sw = httpSourceOf(source(`{type: standard-webhooks, secret: ${SECRET}}`));
    expect(sw.auth).toMatchObject({ type: 'standard-webhooks', timestampToleranceMs: 300_000 });
    expect(sw.idempotencyKeyHeader).toBe('webhook-id');
    const stripe = httpSourceOf(
      source('{type: stripe, secret: whsec_x, timestampTolerance: 60000}'),
    );
    expect(stripe.auth).toMatchObject({ type: 'stripe', timestampToleranceMs: 60_000 });
    expect(stripe.idempotencyKeyPath).toEqual(['$.id']);
    expect(stripe.idempotencyKeyHeader).toBeNull();
    const github = httpSourceOf(source('{type: github, secrets: [a, b]}'));
    expect(github.idempotencyKeyHeader).toBe('X-GitHub-Delivery');
    expect(github.auth?.type === 'github' && github.auth.secrets.map((s) => s.reveal())).toEqual([
      'a',
      'b',
    ]);
    // A key the source names wins.
    const named = httpSourceOf(source('{type: github, secret: a}', ', idempotencyKeyPath: $.id'));
    expect(named.idempotencyKeyHeader).toBeNull();
    expect(named.idempotencyKeyPath).toEqual(['$.id']);
  });

  it('needs a key on a Shopify source, which has no event id in the signed request', () => {
    expect(problems(source('{type: shopify, secret: a}'))).toEqual([
      'sources.s: has no idempotency key; set sources.s.idempotencyKeyPath to a JSONPath in the body, sources.s.idempotencyKeyHeader to a request header, or sources.s.idempotencyKeyExpression to a JSONata expression',
    ]);
    expect(
      problems(
        source('{type: shopify, secret: a}', ', idempotencyKeyHeader: X-Shopify-Webhook-Id'),
      ),
    ).toEqual([]);
  });

  it('names the key of each problem', () => {
    expect(problems(source('{type: stripe}'))).toEqual([
      'sources.s.auth.secret: required; set sources.s.auth.secret, or sources.s.auth.secrets (a list) during a rotation',
    ]);
    expect(problems(source('{type: standard-webhooks, secret: "no base64!"}'))).toEqual([
      "sources.s.auth.secret: is not a Standard Webhooks secret; write 'whsec_' followed by the base64 of the key (the value is not printed)",
    ]);
    expect(problems(source('{type: stripe, secret: a, timestampTolerance: 0}'))).toEqual([
      'sources.s.auth.timestampTolerance: must be greater than 0',
    ]);
    expect(problems(source('{type: github, secret: a, timestampTolerance: 1000}'))[0]).toMatch(
      /^sources\.s\.auth\.timestampTolerance: unknown key for type github/,
    );
    expect(
      problems(source('{type: github, secret: a}', ', idempotencyKeyHeader: X-Hub-Signature-256')),
    ).toEqual([
      "sources.s.idempotencyKeyHeader: 'X-Hub-Signature-256' carries the github signature that sources.s.auth reads, which QueueBox never stores, so the value would never be found; name another header",
    ]);
  });

  it('is not an admin auth type', () => {
    const [problem] = problems('admin: {enabled: true, auth: {type: github, secret: a}}\n');
    expect(problem).toMatch(/^admin\.auth\.type: unknown type github/);
  });
});

describe('config print of the new keys', () => {
  it('masks every secret and tells where each came from', () => {
    const { settings } = explainConfig({
      env: DB_ENV,
      readFile: (path) =>
        path === '/cfg.yml'
          ? `${destination(`{scheme: standard-webhooks, secrets: [${SECRET}, whsec_AAAA]}`)}${source('{type: github, secret: gh-secret-1}')}`
          : undefined,
    });
    const find = (path: string) => settings.find((s) => s.path === path);
    expect(find('destinations.d.signing.secrets[1]')).toMatchObject({
      value: 'Secret(***)',
      origin: { kind: 'file' },
    });
    // A single `secret` is the list of one, and still comes from the file.
    expect(find('sources.s.auth.secrets[0]')).toMatchObject({
      value: 'Secret(***)',
      origin: { kind: 'file' },
    });
    expect(find('sources.s.idempotencyKeyHeader')?.value).toBe('"X-GitHub-Delivery"');
    expect(JSON.stringify(settings)).not.toMatch(/gh-secret-1|MfKQ9r8|whsec_AAAA/);
  });
});
