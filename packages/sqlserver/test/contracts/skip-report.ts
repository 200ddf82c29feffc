// Moved to @queuebox/testing/contracts, shared with the SQL Server suites of other packages.
export { reportSkippedSuites } from '@queuebox/testing/contracts';
