/**
 * Flyway's schema history table as both dialects keep it (spec §3.5): the same table name,
 * columns, baseline description and row rules, so a database the reference migrated is read as
 * it is. Each dialect writes the DDL and statements in its own SQL; the rows are these.
 */
export const HISTORY_TABLE = 'flyway_schema_history';
export const BASELINE_DESCRIPTION = '<< Flyway Baseline >>';

export interface HistoryRow {
  readonly installedRank: number;
  readonly version: string | null;
  readonly type: string;
  readonly success: boolean;
}

export interface NewHistoryRow {
  readonly version: string;
  readonly description: string;
  readonly type: 'SQL' | 'BASELINE';
  readonly script: string;
  readonly checksum: number | null;
  readonly executionTimeMs: number;
}
