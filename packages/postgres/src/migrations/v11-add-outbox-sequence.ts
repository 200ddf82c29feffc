import type { Migration } from '@queuebox/core';

// Requires every old replica stopped first: old replicas claim by created_at, new ones by key
// and sequence, and the two must never run together. Do not roll an image back across it.
//
// The backfill numbers rows that exist before the column in (created_at, id) order, starting
// after the current maximum, so the rows of one key keep the order the old claim gave them.
// Everything is guarded on the column, so a rerun (or a column an operator already added) does
// not fail and never renumbers rows.
export const v11AddOutboxSequence: Migration = {
  version: '11',
  description: 'add outbox sequence',
  script: 'V11__add_outbox_sequence.sql',
  sql: `-- STOP EVERY OLD REPLICA BEFORE APPLYING THIS FILE.
DO $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'outbox' AND column_name = 'sequence'
    ) THEN
        ALTER TABLE outbox ADD COLUMN sequence BIGINT;
        CREATE SEQUENCE outbox_sequence_seq AS BIGINT OWNED BY outbox.sequence;

        WITH numbered AS (
            SELECT id, row_number() OVER (ORDER BY created_at, id) AS n
            FROM outbox
            WHERE sequence IS NULL
        ), base AS (
            SELECT COALESCE(MAX(sequence), 0) AS max_sequence FROM outbox
        )
        UPDATE outbox
        SET sequence = base.max_sequence + numbered.n
        FROM numbered, base
        WHERE outbox.id = numbered.id;

        -- The next insert continues after the backfilled rows.
        PERFORM setval('outbox_sequence_seq', (SELECT COALESCE(MAX(sequence), 0) + 1 FROM outbox), false);

        ALTER TABLE outbox ALTER COLUMN sequence SET DEFAULT nextval('outbox_sequence_seq');
        ALTER TABLE outbox ALTER COLUMN sequence SET NOT NULL;
    END IF;
END
$$;

-- The key-ordered claim: the earliest open row of each key.
CREATE INDEX IF NOT EXISTS idx_outbox_key_sequence ON outbox (key, sequence) WHERE state IN ('pending', 'processing');
`,
};
