// Lint fixture: the other half of the cycle with cycle-a.
import { two } from './cycle-a.js';

export const one = (): number => 1;
export const three = (): number => two() + 1;
