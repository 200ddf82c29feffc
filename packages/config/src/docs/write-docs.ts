/** `pnpm docs:config`: writes docs/configuration.md from the schema (run on the built package). */
import { writeFileSync } from 'node:fs';
import { DOCUMENT, renderConfigurationDoc } from './render.js';

writeFileSync(DOCUMENT, renderConfigurationDoc());
console.log(`wrote ${DOCUMENT}`);
