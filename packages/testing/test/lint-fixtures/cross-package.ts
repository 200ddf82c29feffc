// Lint fixture: reaches into core's sources by a relative path instead of @queuebox/core.
import { sanitize } from '../../../core/src/sanitizer.js';

export const clean = (text: string): string => sanitize(text);
