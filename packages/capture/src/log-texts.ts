import type { DurableSlot } from '@queuebox/core';

/** The capture service's log lines; the first two are the reference's (spec §10, §10.1). */
export const captureLogTexts = {
  ownerElsewhere: 'Capture identity already has an active owner. SQL reconciliation continues.',
  interrupted: (reason: string) =>
    `Capture interrupted; SQL reconciliation continues. Reason: ${reason}`,
  running: (identity: string) =>
    `Capture of identity '${identity}' is running: every outbox insert wakes the poller.`,
  registered: (identity: string) =>
    `Registered capture identity '${identity}' in queuebox_capture_state.`,
  settingsDiffer: (identity: string) =>
    `The capture settings of identity '${identity}' differ from those queuebox_capture_state recorded. Capture keeps no state between connections, so nothing needs recovering; the row is left as it is.`,
  staleSession: (identity: string, session: string) =>
    `The ownership lock of capture identity '${identity}' was still held by session ${session}, this process's own previous one, whose connection was lost. That session was ended; the next attempt takes the lock.`,
  lockLost: 'The capture session on the database was lost, and the ownership lock with it.',
  durableSlot: (slot: DurableSlot) =>
    slot.active
      ? `The durable replication slot '${slot.name}' is being read by another process (a QueueBox 0.8.1 that still captures?) and retains ${slot.retainedBytes} bytes of WAL. This QueueBox captures through temporary slots and never reads it; once no QueueBox 0.8.1 captures any more, drop it: SELECT pg_drop_replication_slot('${slot.name}');`
      : `The durable replication slot '${slot.name}' (QueueBox 0.8.1 captured through it) is read by nobody and retains ${slot.retainedBytes} bytes of WAL, more with every write, until the disk fills. This QueueBox captures through temporary slots and never reads it. Drop it: SELECT pg_drop_replication_slot('${slot.name}');`,
  paused:
    'The outbox poller is busy (it claims full batches without waiting), so capture closed its change feed; it opens a new one once the poller is not busy for a second.',
  resumed: 'The outbox poller is not busy any more: capture opened a new change feed.',
  durableSlotGone: (name: string) => `The durable replication slot '${name}' is gone.`,
} as const;
