-- QueueBox pull renew (PostgreSQL). Extends the lease of a message you hold.
--   $1 lease_ms  bigint  the new lease: DB now + lease_ms
--   $2 id        uuid    the message id
--   $3 token     uuid    the claim_token the claim returned
-- Exactly one row affected = still yours. Zero = ownership lost: stop the handler, complete
-- nothing, and never retry with another token.
UPDATE "inbox"
SET "lease_expires_at" = clock_timestamp() + $1::bigint * interval '1 millisecond'
WHERE "id" = $2
  AND "consumption" = 'pull'
  AND ("state" = 'processing') IS TRUE
  AND "claim_token" = $3
  AND "lease_expires_at" > clock_timestamp();
