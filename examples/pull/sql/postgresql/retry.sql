-- QueueBox pull retry (PostgreSQL). Returns a message you hold to pending for a later attempt.
-- Run it in its own transaction, after the handler's transaction rolled back.
--   $1 delay_ms  bigint  the next attempt is due at DB now + delay_ms
--   $2 error     text    the failure, sanitized and at most 2000 characters
--   $3 id        uuid    the message id
--   $4 token     uuid    the claim_token the claim returned
-- Zero rows affected = the claim was already lost (log it; someone else has the message).
UPDATE "inbox"
SET "state" = 'pending',
    "scheduled_at" = clock_timestamp() + $1::bigint * interval '1 millisecond',
    "attempt" = "attempt" + 1,
    "last_error" = $2,
    "claim_token" = NULL,
    "lease_expires_at" = NULL
WHERE "id" = $3
  AND "consumption" = 'pull'
  AND ("state" = 'processing') IS TRUE
  AND "claim_token" = $4
  AND "lease_expires_at" > clock_timestamp();
