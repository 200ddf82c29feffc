// The reviewed list moved to @queuebox/testing/tsql: one list for every T-SQL parse test.
export { REVIEWED, type ReviewedStatement } from '@queuebox/testing/tsql';
