// One export per bundled migration file; `index.ts` orders them by version.
export { v01CreateOutbox } from './v01-create-outbox.js';
export { v02CreateInbox } from './v02-create-inbox.js';
export { v03AddClaimedAt } from './v03-add-claimed-at.js';
export { v04AddLastError } from './v04-add-last-error.js';
export { v05AddCorrelationId } from './v05-add-correlation-id.js';
export { v06AddConsumptionAndLeases } from './v06-add-consumption-and-leases.js';
export { v07CaptureState } from './v07-capture-state.js';
export { v08AddPullClaimIndexes } from './v08-add-pull-claim-indexes.js';
export { v09AddAggregateType } from './v09-add-aggregate-type.js';
export { v10AddInboxHeaders } from './v10-add-inbox-headers.js';
export { v11AddOutboxSequence } from './v11-add-outbox-sequence.js';
export { v12AddDeadLetterIndexes } from './v12-add-dead-letter-indexes.js';
