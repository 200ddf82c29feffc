import type { Migration } from '@queuebox/core';

// Requires every old replica stopped first: old replicas claim by created_at, new ones by key
// and sequence, and the two must never run together. Do not roll an image back across it.
//
// As on PostgreSQL, the backfill numbers existing rows in (created_at, id) order after the current
// maximum, the sequence object continues after them, then the default and NOT NULL follow.
// Guarded on the column, so a rerun never renumbers rows. Statements naming the new column run
// through EXEC (the batch compiled before it existed).
export const v11AddOutboxSequence: Migration = {
  version: '11',
  description: 'add outbox sequence',
  script: 'V11__add_outbox_sequence.sql',
  sql: `-- STOP EVERY OLD REPLICA BEFORE APPLYING THIS FILE.
IF COL_LENGTH(N'outbox', N'sequence') IS NULL
BEGIN
    ALTER TABLE outbox ADD sequence BIGINT NULL;

    IF OBJECT_ID(N'outbox_sequence_seq', N'SO') IS NULL
        CREATE SEQUENCE outbox_sequence_seq AS BIGINT START WITH 1 INCREMENT BY 1;

    EXEC('WITH numbered AS (SELECT sequence, ROW_NUMBER() OVER (ORDER BY created_at, id) AS n FROM outbox WHERE sequence IS NULL) UPDATE numbered SET sequence = n + (SELECT COALESCE(MAX(sequence), 0) FROM outbox)');

    -- The next insert continues after the backfilled rows.
    EXEC('DECLARE @restart NVARCHAR(200) = N''ALTER SEQUENCE outbox_sequence_seq RESTART WITH '' + CAST((SELECT COALESCE(MAX(sequence), 0) + 1 FROM outbox) AS NVARCHAR(20)); EXEC(@restart)');

    EXEC('ALTER TABLE outbox ADD CONSTRAINT df_outbox_sequence DEFAULT (NEXT VALUE FOR outbox_sequence_seq) FOR sequence');
    EXEC('ALTER TABLE outbox ALTER COLUMN sequence BIGINT NOT NULL');
END;

-- The key-ordered claim: the earliest open row of each key.
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'idx_outbox_key_sequence' AND object_id = OBJECT_ID(N'outbox'))
    EXEC('CREATE INDEX idx_outbox_key_sequence ON outbox ([key], sequence) WHERE state IN (''pending'', ''processing'')');
`,
};
