-- QueueBox pull complete (PostgreSQL). Run it inside the handler's transaction, so the handler's
-- writes and the completion commit together.
--   $1 id     uuid  the message id
--   $2 token  uuid  the claim_token the claim returned
-- Exactly one row affected = commit. Zero = the claim was lost: roll the whole transaction back.
UPDATE "inbox"
SET "state" = 'processed',
    "processed_at" = clock_timestamp(),
    "claim_token" = NULL,
    "lease_expires_at" = NULL
WHERE "id" = $1
  AND "consumption" = 'pull'
  AND ("state" = 'processing') IS TRUE
  AND "claim_token" = $2
  AND "lease_expires_at" > clock_timestamp();
