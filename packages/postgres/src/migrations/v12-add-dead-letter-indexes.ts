import type { Migration } from '@queuebox/core';

/** The one place this file's number is written: renumbering it is this line. */
const VERSION = '12';

// Partial indexes: only dead rows enter them, so the delivery path (pending, processing, sent)
// never writes to them. A plain CREATE INDEX blocks writes to the table while it builds; on a
// large outbox create the same indexes with CREATE INDEX CONCURRENTLY ahead of time (same names)
// and apply this file with --baseline.
export const v12AddDeadLetterIndexes: Migration = {
  version: VERSION,
  description: 'add dead letter indexes',
  script: `V${VERSION}__add_dead_letter_indexes.sql`,
  sql: `-- The console's dead-letter pages, newest first: all dead rows, and the dead rows of one topic.
CREATE INDEX IF NOT EXISTS idx_outbox_dead_created ON outbox (created_at, id) WHERE state = 'dead';
CREATE INDEX IF NOT EXISTS idx_outbox_dead_topic_created ON outbox (topic, created_at, id) WHERE state = 'dead';

-- The dead rows of one inbox source (all dead rows use idx_inbox_state_created).
CREATE INDEX IF NOT EXISTS idx_inbox_dead_source_created ON inbox (source, created_at, id) WHERE state = 'dead';
`,
};
