import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingLogger } from '../../test/support.js';
import { runMigrations } from '../migrator/migrate.js';

const pg = await requireService('postgres', 'postgres: reference schema');

/**
 * The schema the migrations produce, compared with the catalog column by column and index by
 * index. The expectation is written from spec §3.2–§3.5 (the reference's tables), in the form
 * PostgreSQL reports it, not derived from our migration files.
 */
type Column = readonly [
  type: string,
  length: number | null,
  nullable: 'YES' | 'NO',
  defaultValue: string | null,
];

const TIMESTAMPTZ = 'timestamp with time zone';
const NOW = 'CURRENT_TIMESTAMP';

const EXPECTED_COLUMNS: Record<string, Record<string, Column>> = {
  outbox: {
    id: ['uuid', null, 'NO', 'gen_random_uuid()'],
    topic: ['character varying', 255, 'NO', null],
    key: ['character varying', 255, 'YES', null],
    payload: ['jsonb', null, 'NO', null],
    headers: ['jsonb', null, 'NO', "'{}'::jsonb"],
    aggregate_type: ['character varying', 255, 'YES', null],
    state: ['character varying', 50, 'NO', "'pending'::character varying"],
    attempt: ['integer', null, 'NO', '0'],
    max_attempts: ['integer', null, 'NO', '5'],
    scheduled_at: [TIMESTAMPTZ, null, 'NO', NOW],
    created_at: [TIMESTAMPTZ, null, 'NO', NOW],
    updated_at: [TIMESTAMPTZ, null, 'NO', NOW],
    claimed_at: [TIMESTAMPTZ, null, 'YES', null],
    claim_token: ['uuid', null, 'YES', null],
    lease_expires_at: [TIMESTAMPTZ, null, 'YES', null],
    last_error: ['text', null, 'YES', null],
    sequence: ['bigint', null, 'NO', "nextval('outbox_sequence_seq'::regclass)"],
  },
  inbox: {
    id: ['uuid', null, 'NO', 'gen_random_uuid()'],
    source: ['character varying', 255, 'NO', null],
    idempotency_key: ['character varying', 255, 'NO', null],
    aggregate_id: ['character varying', 255, 'YES', null],
    event_type: ['character varying', 255, 'YES', null],
    payload: ['jsonb', null, 'NO', null],
    headers: ['jsonb', null, 'NO', "'{}'::jsonb"],
    correlation_id: ['character varying', 128, 'YES', null],
    consumption: ['character varying', 4, 'NO', "'push'::character varying"],
    state: ['character varying', 50, 'NO', "'pending'::character varying"],
    created_at: [TIMESTAMPTZ, null, 'NO', NOW],
    processed_at: [TIMESTAMPTZ, null, 'YES', null],
    scheduled_at: [TIMESTAMPTZ, null, 'NO', NOW],
    attempt: ['integer', null, 'NO', '0'],
    last_error: ['text', null, 'YES', null],
    claimed_at: [TIMESTAMPTZ, null, 'YES', null],
    claim_token: ['uuid', null, 'YES', null],
    lease_expires_at: [TIMESTAMPTZ, null, 'YES', null],
  },
  queuebox_capture_state: {
    identity_name: ['character varying', 63, 'NO', null],
    state_id: ['character varying', 36, 'NO', null],
    config_fingerprint: ['character varying', 64, 'NO', null],
  },
  // Flyway's own table on PostgreSQL (spec §3.5).
  flyway_schema_history: {
    installed_rank: ['integer', null, 'NO', null],
    version: ['character varying', 50, 'YES', null],
    description: ['character varying', 200, 'NO', null],
    type: ['character varying', 20, 'NO', null],
    script: ['character varying', 1000, 'NO', null],
    checksum: ['integer', null, 'YES', null],
    installed_by: ['character varying', 100, 'NO', null],
    installed_on: ['timestamp without time zone', null, 'NO', 'now()'],
    execution_time: ['integer', null, 'NO', null],
    success: ['boolean', null, 'NO', null],
  },
};

const btree = (unique: boolean, name: string, table: string, columns: string, where?: string) =>
  `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON public.${table} USING btree (${columns})${where ? ` WHERE ${where}` : ''}`;
const stateIs = (value: string) => `((state)::text = '${value}'::text)`;
const pullAnd = (state: string) =>
  `(((consumption)::text = 'pull'::text) AND ((state)::text = '${state}'::text))`;

const EXPECTED_INDEXES: Record<string, string> = {
  outbox_pkey: btree(true, 'outbox_pkey', 'outbox', 'id'),
  idx_outbox_pending_scheduled: btree(
    false,
    'idx_outbox_pending_scheduled',
    'outbox',
    'state, scheduled_at',
    stateIs('pending'),
  ),
  idx_outbox_topic: btree(false, 'idx_outbox_topic', 'outbox', 'topic'),
  idx_outbox_processing_claimed: btree(
    false,
    'idx_outbox_processing_claimed',
    'outbox',
    'claimed_at',
    stateIs('processing'),
  ),
  idx_outbox_key_sequence: btree(
    false,
    'idx_outbox_key_sequence',
    'outbox',
    'key, sequence',
    "((state)::text = ANY ((ARRAY['pending'::character varying, 'processing'::character varying])::text[]))",
  ),
  // V12, beyond the reference: the console's dead-letter pages.
  idx_outbox_dead_created: btree(
    false,
    'idx_outbox_dead_created',
    'outbox',
    'created_at, id',
    stateIs('dead'),
  ),
  idx_outbox_dead_topic_created: btree(
    false,
    'idx_outbox_dead_topic_created',
    'outbox',
    'topic, created_at, id',
    stateIs('dead'),
  ),
  idx_inbox_dead_source_created: btree(
    false,
    'idx_inbox_dead_source_created',
    'inbox',
    'source, created_at, id',
    stateIs('dead'),
  ),
  inbox_pkey: btree(true, 'inbox_pkey', 'inbox', 'id'),
  uq_inbox_source_idempotency: btree(
    true,
    'uq_inbox_source_idempotency',
    'inbox',
    'source, idempotency_key',
  ),
  idx_inbox_pending: btree(false, 'idx_inbox_pending', 'inbox', 'state', stateIs('pending')),
  idx_inbox_source: btree(false, 'idx_inbox_source', 'inbox', 'source'),
  idx_inbox_aggregate_state: btree(
    false,
    'idx_inbox_aggregate_state',
    'inbox',
    'aggregate_id, state',
  ),
  idx_inbox_processing_claimed: btree(
    false,
    'idx_inbox_processing_claimed',
    'inbox',
    'claimed_at',
    stateIs('processing'),
  ),
  idx_inbox_state_created: btree(false, 'idx_inbox_state_created', 'inbox', 'state, created_at'),
  idx_inbox_consumption_pending: btree(
    false,
    'idx_inbox_consumption_pending',
    'inbox',
    'consumption, state, scheduled_at',
  ),
  idx_inbox_pull_pending: btree(
    false,
    'idx_inbox_pull_pending',
    'inbox',
    'source, scheduled_at, created_at, id',
    pullAnd('pending'),
  ),
  idx_inbox_pull_busy: btree(
    false,
    'idx_inbox_pull_busy',
    'inbox',
    'source, aggregate_id, lease_expires_at',
    pullAnd('processing'),
  ),
  queuebox_capture_state_pkey: btree(
    true,
    'queuebox_capture_state_pkey',
    'queuebox_capture_state',
    'identity_name',
  ),
  flyway_schema_history_pk: btree(
    true,
    'flyway_schema_history_pk',
    'flyway_schema_history',
    'installed_rank',
  ),
  flyway_schema_history_s_idx: btree(
    false,
    'flyway_schema_history_s_idx',
    'flyway_schema_history',
    'success',
  ),
};

const EXPECTED_CONSTRAINTS = [
  'flyway_schema_history flyway_schema_history_pk p PRIMARY KEY (installed_rank)',
  "inbox inbox_consumption_check c CHECK (((consumption)::text = ANY ((ARRAY['push'::character varying, 'pull'::character varying])::text[])))",
  'inbox inbox_pkey p PRIMARY KEY (id)',
  'inbox uq_inbox_source_idempotency u UNIQUE (source, idempotency_key)',
  'outbox outbox_pkey p PRIMARY KEY (id)',
  'queuebox_capture_state queuebox_capture_state_pkey p PRIMARY KEY (identity_name)',
];

describe.skipIf(!pg.available)('migrate on an empty database: the reference schema', () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url);
    await runMigrations(db.sql, { logger: recordingLogger() });
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('creates exactly the reference tables', async () => {
    const rows = await db.sql<{ table_name: string; table_type: string }[]>`
      SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`;
    expect(rows.map((r) => `${r.table_name} ${r.table_type}`)).toEqual(
      ['flyway_schema_history', 'inbox', 'outbox', 'queuebox_capture_state'].map(
        (t) => `${t} BASE TABLE`,
      ),
    );
  });

  it.each(Object.keys(EXPECTED_COLUMNS))(
    'gives table %s every reference column, type, length, nullability and default',
    async (table) => {
      const rows = await db.sql<
        {
          column_name: string;
          data_type: string;
          character_maximum_length: number | null;
          is_nullable: 'YES' | 'NO';
          column_default: string | null;
          is_identity: string;
        }[]
      >`
      SELECT column_name, data_type, character_maximum_length, is_nullable, column_default, is_identity
      FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ${table}`;
      const actual = Object.fromEntries(
        rows.map((r) => [
          r.column_name,
          [r.data_type, r.character_maximum_length, r.is_nullable, r.column_default],
        ]),
      );
      expect(actual).toEqual(EXPECTED_COLUMNS[table]);
      // The sequence column is a plain default on a sequence, not an identity column.
      expect(rows.every((r) => r.is_identity === 'NO')).toBe(true);
    },
  );

  it('creates every reference index with its columns and predicate, and no other', async () => {
    const rows = await db.sql<{ indexname: string; indexdef: string }[]>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`;
    const actual = Object.fromEntries(rows.map((r) => [r.indexname, r.indexdef]));
    expect(Object.keys(actual).sort()).toEqual(Object.keys(EXPECTED_INDEXES).sort());
    for (const [name, definition] of Object.entries(EXPECTED_INDEXES)) {
      expect(actual[name], name).toBe(definition);
    }
  });

  it('creates the primary keys, the unique constraint and the consumption CHECK', async () => {
    const rows = await db.sql<{ line: string }[]>`
      SELECT conrelid::regclass::text || ' ' || conname || ' ' || contype::text || ' ' || pg_get_constraintdef(oid) AS line
      FROM pg_constraint
      WHERE connamespace = 'public'::regnamespace
      ORDER BY 1`;
    expect(rows.map((r) => r.line)).toEqual(EXPECTED_CONSTRAINTS);
  });

  it('creates outbox_sequence_seq as a BIGINT sequence owned by outbox.sequence', async () => {
    const sequences = await db.sql<
      {
        sequencename: string;
        data_type: string;
        start_value: string;
        min_value: string;
        increment_by: string;
        cycle: boolean;
      }[]
    >`
      SELECT sequencename, data_type::text AS data_type, start_value::text AS start_value,
             min_value::text AS min_value, increment_by::text AS increment_by, cycle
      FROM pg_sequences WHERE schemaname = 'public'`;
    expect(sequences).toEqual([
      {
        sequencename: 'outbox_sequence_seq',
        data_type: 'bigint',
        start_value: '1',
        min_value: '1',
        increment_by: '1',
        cycle: false,
      },
    ]);
    const [owner] = await db.sql<{ owned: string | null; deptype: string }[]>`
      SELECT pg_get_serial_sequence('public.outbox', 'sequence') AS owned, d.deptype::text AS deptype
      FROM pg_depend d
      WHERE d.classid = 'pg_class'::regclass AND d.objid = 'public.outbox_sequence_seq'::regclass
        AND d.refobjid = 'public.outbox'::regclass`;
    expect(owner).toEqual({ owned: 'public.outbox_sequence_seq', deptype: 'a' });
  });

  it('fills the defaults an application insert relies on', async () => {
    await db.sql`INSERT INTO outbox (topic, payload) VALUES ('a', '{"n":1}'), ('b', '{"n":2}')`;
    const rows = await db.sql<
      {
        topic: string;
        state: string;
        attempt: number;
        max_attempts: number;
        headers: unknown;
        sequence: string;
      }[]
    >`
      SELECT topic, state, attempt, max_attempts, headers, sequence::text AS sequence FROM outbox ORDER BY sequence`;
    expect(rows).toEqual([
      { topic: 'a', state: 'pending', attempt: 0, max_attempts: 5, headers: {}, sequence: '1' },
      { topic: 'b', state: 'pending', attempt: 0, max_attempts: 5, headers: {}, sequence: '2' },
    ]);
    await expect(
      db.sql`INSERT INTO outbox (topic, payload, headers) VALUES ('c', '{}', NULL)`,
    ).rejects.toThrow(/not-null/);
  });

  it('deduplicates the inbox on (source, idempotency_key) and checks consumption', async () => {
    await db.sql`INSERT INTO inbox (source, idempotency_key, payload) VALUES ('s', 'k', '{}')`;
    const [row] = await db.sql<{ consumption: string; state: string; attempt: number }[]>`
      SELECT consumption, state, attempt FROM inbox`;
    expect(row).toEqual({ consumption: 'push', state: 'pending', attempt: 0 });
    await expect(
      db.sql`INSERT INTO inbox (source, idempotency_key, payload) VALUES ('s', 'k', '{}')`,
    ).rejects.toThrow(/uq_inbox_source_idempotency/);
    await expect(
      db.sql`INSERT INTO inbox (source, idempotency_key, payload, consumption) VALUES ('s', 'k2', '{}', 'both')`,
    ).rejects.toThrow(/inbox_consumption_check/);
  });
});
