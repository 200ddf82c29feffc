/**
 * PostgreSQL access for loading and observing (postgres.js). A fresh database per scenario,
 * created and dropped here. The server is the local one (trust auth) unless QUEUEBOX_BENCH_PG*
 * variables say otherwise.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export const PG = {
  host: process.env.QUEUEBOX_BENCH_PGHOST ?? '127.0.0.1',
  port: Number(process.env.QUEUEBOX_BENCH_PGPORT ?? 5432),
  user: process.env.QUEUEBOX_BENCH_PGUSER ?? 'postgres',
  password: process.env.QUEUEBOX_BENCH_PGPASSWORD ?? 'postgres',
};

export function connect(database, options = {}) {
  return postgres({
    ...PG,
    database,
    max: 4,
    onnotice: () => undefined,
    connection: { application_name: 'queuebox-bench' },
    ...options,
  });
}

export function connectionString(database) {
  return `postgres://${encodeURIComponent(PG.user)}:${encodeURIComponent(PG.password)}@${PG.host}:${PG.port}/${database}`;
}

export function jdbcUrl(database) {
  return `jdbc:postgresql://${PG.host}:${PG.port}/${database}`;
}

export async function createDatabase(prefix = 'qb_bench') {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = connect('postgres', { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return name;
}

export async function dropDatabase(name) {
  const admin = connect('postgres', { max: 1 });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Creates a database, runs `body(name)`, and drops it afterwards unless `keep` is set. */
export async function withDatabase(prefix, keep, body) {
  const name = await createDatabase(prefix);
  try {
    return await body(name);
  } finally {
    if (!keep)
      await dropDatabase(name).catch((e) => console.error(`could not drop ${name}: ${e.message}`));
  }
}
