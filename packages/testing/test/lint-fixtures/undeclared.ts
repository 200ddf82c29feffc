// Lint fixture: jsonata is a dependency of outbox-service, not of this package.
import jsonata from 'jsonata';

export const engine = jsonata;
