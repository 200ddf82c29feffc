-- QueueBox pull dead letter (SQL Server). Gives up on a message you hold; an operator can requeue
-- it (see docs/pull.md). Run it in its own transaction.
--   @p1 error  NVARCHAR(MAX)     the final failure, sanitized and at most 2000 characters
--   @p2 id     UNIQUEIDENTIFIER  the message id
--   @p3 token  UNIQUEIDENTIFIER  the claim_token the claim returned
-- Zero rows affected = the claim was already lost.
UPDATE [inbox]
SET [state] = 'dead',
    [last_error] = @p1,
    [claim_token] = NULL,
    [lease_expires_at] = NULL
WHERE [id] = @p2
  AND [consumption] = 'pull'
  AND [state] = 'processing'
  AND [claim_token] = @p3
  AND [lease_expires_at] > SYSUTCDATETIME();
