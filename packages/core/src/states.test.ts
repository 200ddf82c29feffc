import { describe, expect, it } from 'vitest';
import { INBOX_STATES, OUTBOX_STATES } from './states.js';

describe('state sets', () => {
  it('are the literals of the seeds', () => {
    expect(OUTBOX_STATES).toEqual(['pending', 'processing', 'sent', 'dead']);
    expect(INBOX_STATES).toEqual(['pending', 'processing', 'processed', 'dead']);
  });
});
