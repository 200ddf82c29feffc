-- QueueBox pull retry (SQL Server). Returns a message you hold to pending for a later attempt.
-- Run it in its own transaction, after the handler's transaction rolled back.
--   @p1 delay_ms  INT               the next attempt is due at DB now + delay_ms
--   @p2 error     NVARCHAR(MAX)     the failure, sanitized and at most 2000 characters
--   @p3 id        UNIQUEIDENTIFIER  the message id
--   @p4 token     UNIQUEIDENTIFIER  the claim_token the claim returned
-- Zero rows affected = the claim was already lost (log it; someone else has the message).
UPDATE [inbox]
SET [state] = 'pending',
    [scheduled_at] = DATEADD(millisecond, @p1, SYSUTCDATETIME()),
    [attempt] = [attempt] + 1,
    [last_error] = @p2,
    [claim_token] = NULL,
    [lease_expires_at] = NULL
WHERE [id] = @p3
  AND [consumption] = 'pull'
  AND [state] = 'processing'
  AND [claim_token] = @p4
  AND [lease_expires_at] > SYSUTCDATETIME();
