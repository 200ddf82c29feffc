/** Keys every destination type takes, and the address keys of the broker types (spec §6). */
import { transformBlock } from '../blocks.js';
import { optOneOf, strMap } from '../scalars.js';

/** The row columns an address can be read from instead of a template (underscore spelling). */
export const ADDRESS_COLUMNS = ['aggregate_type', 'topic', 'key'] as const;

export const destinationCommon = { headers: strMap(), transform: transformBlock };

/** `<key>From`: the address read from a row column; it wins over the template (destination rules). */
export const addressFrom = () => optOneOf(ADDRESS_COLUMNS);
