// Lint fixture: imports cycle-b, which imports this file (import-x/no-cycle).
import { one } from './cycle-b.js';

export const two = (): number => one() + 1;
