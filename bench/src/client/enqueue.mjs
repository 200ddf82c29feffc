/**
 * (1) `enqueue` and `enqueueMany` of @queuebox/outbox beside the hand-written INSERT doing the
 * same in the same run: 1 KiB payloads, null keys, a fresh migrated database per scenario.
 */
import { enqueue, enqueueMany } from '@queuebox/outbox';
import { connect } from '../lib/pg.mjs';
import { now, round } from '../lib/util.mjs';

const TOPIC = 'bench.client';

/** Runs `calls` units of work over `connections` concurrent loops; returns the seconds taken. */
async function spread(calls, connections, unit) {
  let next = 0;
  const started = now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < calls) await unit(next++);
    }),
  );
  return (now() - started) / 1000;
}

async function countRows(sql) {
  const [row] = await sql`SELECT count(*)::int AS n FROM outbox`;
  return row.n;
}

/** One row per transaction: `enqueue` (variant 'client') or a single-row INSERT ('raw'). */
export async function singleRows(ctx, db, variant) {
  const rows = ctx.options.rows;
  const connections = ctx.options['client-connections'];
  const sql = connect(db, { max: connections });
  try {
    const seconds = await spread(rows, connections, (i) =>
      sql.begin((tx) =>
        variant === 'client'
          ? enqueue(tx, { topic: TOPIC, payloadJson: ctx.payloads.text(i, null) })
          : tx.unsafe('INSERT INTO outbox (topic, payload) VALUES ($1, $2::text::jsonb)', [
              TOPIC,
              ctx.payloads.text(i, null),
            ]),
      ),
    );
    const written = await countRows(sql);
    if (written !== rows) throw new Error(`${written} rows written, ${rows} expected`);
    return { rows, connections, seconds: round(seconds, 2), rowsPerSecond: round(rows / seconds, 0) };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** 1,000 rows a call: `enqueueMany` ('client') or one hand-written multi-row INSERT ('raw'). */
export async function manyRows(ctx, db, variant) {
  const rows = ctx.options.rows;
  const perCall = ctx.options['many-rows'];
  const calls = Math.ceil(rows / perCall);
  const connections = ctx.options['many-connections'];
  const sql = connect(db, { max: connections });
  const valuesText = (count) =>
    `INSERT INTO outbox (topic, payload) VALUES ${Array.from(
      { length: count },
      (_, n) => `($${2 * n + 1}, $${2 * n + 2}::text::jsonb)`,
    ).join(', ')}`;
  const fullText = valuesText(perCall);
  try {
    const seconds = await spread(calls, connections, (call) => {
      const count = Math.min(perCall, rows - call * perCall);
      const texts = Array.from({ length: count }, (_, n) => ctx.payloads.text(call * perCall + n, null));
      return sql.begin((tx) => {
        if (variant === 'client') {
          return enqueueMany(tx, texts.map((payloadJson) => ({ topic: TOPIC, payloadJson })));
        }
        const text = count === perCall ? fullText : valuesText(count);
        return tx.unsafe(text, texts.flatMap((payload) => [TOPIC, payload]));
      });
    });
    const written = await countRows(sql);
    if (written !== rows) throw new Error(`${written} rows written, ${rows} expected`);
    return {
      rows,
      rowsPerCall: perCall,
      connections,
      seconds: round(seconds, 2),
      rowsPerSecond: round(rows / seconds, 0),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
