/**
 * The rules across keys, run once on the whole parsed tree in the reference's order. A rule
 * reads only values without a problem (`Rules.has`); should one still trip over a value broken
 * in a way it did not foresee, the problems already found are what the operator needs, so the
 * rule's own failure is dropped only while other problems exist.
 */
import * as v from 'valibot';
import type { RawConfig } from '../schema/config.js';
import { rulesOver, type Rules } from './context.js';
import { checkAdmin, checkCapture, checkDatabase, checkRetention, checkServer } from './core.js';
import { checkDestinations, checkRoutes } from './destinations.js';
import { checkSources } from './sources.js';

const RULES: readonly ((config: RawConfig, rules: Rules) => void)[] = [
  checkServer,
  (config, rules) => checkCapture(config, checkDatabase(config, rules), rules),
  checkDestinations,
  checkRoutes,
  checkSources,
  checkAdmin,
  checkRetention,
];

export const crossKeyRules = v.rawCheck<RawConfig>(({ dataset, addIssue }) => {
  const rules = rulesOver(() => dataset.issues ?? [], addIssue);
  for (const rule of RULES) {
    try {
      rule(dataset.value as RawConfig, rules);
    } catch (error: unknown) {
      if (dataset.issues === undefined) throw error;
    }
  }
});
