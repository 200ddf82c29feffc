import type { Migration } from '@queuebox/core';
import { v01CreateOutbox } from './v01-create-outbox.js';
import { v02CreateInbox } from './v02-create-inbox.js';
import { v03AddClaimedAt } from './v03-add-claimed-at.js';
import { v04AddLastError } from './v04-add-last-error.js';
import { v05AddCorrelationId } from './v05-add-correlation-id.js';
import { v06AddConsumptionAndLeases } from './v06-add-consumption-and-leases.js';
import { v07CaptureState } from './v07-capture-state.js';
import { v08AddPullClaimIndexes } from './v08-add-pull-claim-indexes.js';
import { v09AddAggregateType } from './v09-add-aggregate-type.js';
import { v10AddInboxHeaders } from './v10-add-inbox-headers.js';
import { v11AddOutboxSequence } from './v11-add-outbox-sequence.js';
import { v12AddDeadLetterIndexes } from './v12-add-dead-letter-indexes.js';

export type { Migration } from '@queuebox/core';

/**
 * The bundled SQL Server migration set, in version order, with the version numbers and file names
 * of the PostgreSQL set (spec §3.5). Released files are never edited: their checksums are recorded
 * in the history. A new change is a new file, on both databases.
 */
export const migrations: readonly Migration[] = Object.freeze([
  v01CreateOutbox,
  v02CreateInbox,
  v03AddClaimedAt,
  v04AddLastError,
  v05AddCorrelationId,
  v06AddConsumptionAndLeases,
  v07CaptureState,
  v08AddPullClaimIndexes,
  v09AddAggregateType,
  v10AddInboxHeaders,
  v11AddOutboxSequence,
  v12AddDeadLetterIndexes,
]);
