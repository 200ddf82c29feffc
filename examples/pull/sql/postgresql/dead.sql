-- QueueBox pull dead letter (PostgreSQL). Gives up on a message you hold; an operator can requeue
-- it (see docs/pull.md). Run it in its own transaction.
--   $1 error  text  the final failure, sanitized and at most 2000 characters
--   $2 id     uuid  the message id
--   $3 token  uuid  the claim_token the claim returned
-- Zero rows affected = the claim was already lost.
UPDATE "inbox"
SET "state" = 'dead',
    "last_error" = $1,
    "claim_token" = NULL,
    "lease_expires_at" = NULL
WHERE "id" = $2
  AND "consumption" = 'pull'
  AND ("state" = 'processing') IS TRUE
  AND "claim_token" = $3
  AND "lease_expires_at" > clock_timestamp();
