import { connect } from 'node:net';
import { requireService } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { serviceOnDatabase } from './sink-service.js';
import { RELAY_OFF, UNREACHABLE_SINK } from './yaml-pieces.js';

const pg = await requireService('postgres', 'app: inbox refusals');
const pgUrl = pg.available ? pg.url : '';

const NUL_BODY =
  'The JSON body holds the escape \\u0000 (a NUL character), which cannot be stored.';

/**
 * Input that cannot be stored as it came, through the real server on the real database: each
 * gets a 4xx that names what to fix (a 500 would tell the sender to retry for ever), and none
 * leaves a row behind. What can be stored, up to each bound, is stored exactly.
 */
describe.skipIf(!pg.available)('webhooks the inbox cannot store', () => {
  const h = serviceOnDatabase(
    pgUrl,
    `
${RELAY_OFF}${UNREACHABLE_SINK}sources:
  plain:
    path: /plain
    consumption: pull
    idempotencyKeyPath: $.id
    eventTypePath: $.type
    aggregateIdPath: $.customer
  decoded:
    path: /decoded
    consumption: pull
    idempotencyKeyPath: $.id
    eventTypeExpression: $decodeUrlComponent(kind)
  shaped:
    path: /shaped
    consumption: pull
    idempotencyKeyPath: $.id
    transform:
      expression: '{"note": $decodeUrlComponent(note)}'
`,
  );

  const post = async (path: string, body: string | Uint8Array) => {
    const res = await fetch(`${h.service.base}/inbox${path}`, { method: 'POST', body });
    return { status: res.status, body: await res.text() };
  };
  const rowCount = async () =>
    (await h.db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM inbox`)[0]!.n;
  const error = (text: string) => JSON.stringify({ error: text });
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('answers each with its 4xx and stores nothing', async () => {
    const long = 'x'.repeat(256);
    const cases: [string, string | Uint8Array, number, string][] = [
      // Not UTF-8: stored altered (U+FFFD) before.
      [
        '/plain',
        new Uint8Array([...Buffer.from('{"id":"u1","type":"'), 0xff, ...Buffer.from('"}')]),
        400,
        error('Invalid JSON'),
      ],
      ['/plain', `{"id":"d1","x":${deep(1000)}}`, 400, error('Invalid JSON')],
      // The widths of VARCHAR(255): 500 Storage failed before.
      [
        '/plain',
        JSON.stringify({ id: long }),
        400,
        error('The idempotency key is longer than 255 characters.'),
      ],
      [
        '/plain',
        JSON.stringify({ id: '😀'.repeat(256) }),
        400,
        error('The idempotency key is longer than 255 characters.'),
      ],
      [
        '/plain',
        JSON.stringify({ id: 'a1', customer: long }),
        400,
        error('The aggregate id is longer than 255 characters.'),
      ],
      [
        '/plain',
        JSON.stringify({ id: 'e1', type: long }),
        400,
        error('The event type is longer than 255 characters.'),
      ],
      // What jsonb refuses: 500 Storage failed before.
      ['/plain', '{"id":"n1","note":"a\\u0000b"}', 400, error(NUL_BODY)],
      ['/plain', '{"id":"n2","x\\u0000":1}', 400, error(NUL_BODY)],
      [
        '/plain',
        '{"id":"s1","note":"\\ud800"}',
        400,
        error(
          'The JSON body holds the escape \\ud800, half of a UTF-16 surrogate pair without the other half, which cannot be stored.',
        ),
      ],
      [
        '/plain',
        '{"id":"r1","n":1e-20000}',
        400,
        error(
          'The JSON body holds the number 1e-20000, which is outside the range of numbers that can be stored.',
        ),
      ],
      // A NUL the key expression made, and one the transform made.
      [
        '/decoded',
        '{"id":"x1","kind":"a%00b"}',
        400,
        error('The event type holds a NUL character (U+0000), which cannot be stored.'),
      ],
      [
        '/shaped',
        '{"id":"t1","note":"a%00b"}',
        422,
        error(`Transform failed: ${NUL_BODY.replace('The JSON body', 'The transform result')}`),
      ],
    ];
    const answers = [];
    for (const [path, body] of cases) answers.push(await post(path, body));
    expect(answers).toEqual(cases.map(([, , status, body]) => ({ status, body })));
    expect(await rowCount()).toBe(0);
  });

  it('refuses a body of a million brackets quickly and answers the next request', async () => {
    const started = Date.now();
    expect(await post('/plain', deep(500_000))).toEqual({
      status: 400,
      body: error('Invalid JSON'),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await post('/plain', '{"id":"after-deep"}')).status).toBe(202);
    await h.db.sql`DELETE FROM inbox`;
  });

  it('leaves a NUL in a header to Node, which answers 400 before QueueBox sees it', async () => {
    const url = new URL(h.service.base);
    const body = '{"id":"h1"}';
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /inbox/plain HTTP/1.1\r\nHost: x\r\nX-Trace: a\u0000b\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
          'latin1',
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rowCount()).toBe(0);
  });

  it('stores what fits up to each bound, exactly', async () => {
    const emoji = '😀'.repeat(255);
    const bodies = [
      `{"id":"depth-1000","x":${deep(999)}}`,
      JSON.stringify({ id: emoji }),
      '{"id":"huge","n":1e400,"m":-1e-16383}',
      JSON.stringify({ id: 'line', type: 'order.paid\nforged line' }),
      '{"id":"escapes","s":"\\ud83d\\ude00\\u00e9\\\\u0000"}',
    ];
    for (const body of bodies) expect((await post('/plain', body)).status).toBe(202);
    const rows = await h.db.sql<
      { key: string; chars: number; type: string | null; text: string }[]
    >`
      SELECT idempotency_key AS key, char_length(idempotency_key)::int AS chars,
             event_type AS type, payload::text AS text
      FROM inbox`;
    const byKey = new Map(rows.map((row) => [row.key, row]));
    expect(rows).toHaveLength(5);
    expect(byKey.get(emoji)?.chars).toBe(255);
    expect(byKey.get('huge')?.text).toBe(
      `{"m": -0.${'0'.repeat(16_382)}1, "n": 1${'0'.repeat(400)}, "id": "huge"}`,
    );
    expect(byKey.get('line')?.type).toBe('order.paid\nforged line');
    expect(byKey.get('escapes')?.text).toBe('{"s": "😀é\\\\u0000", "id": "escapes"}');
  });
});
