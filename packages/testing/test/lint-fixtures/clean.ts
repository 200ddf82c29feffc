// Lint fixture: a Node built-in, a declared dependency and a relative import: nothing to report.
import { createServer } from 'node:net';
import postgres from 'postgres';
import { one } from './cycle-b.js';

export const parts = [createServer, postgres, one] as const;
