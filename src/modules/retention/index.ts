// retention owns the periodic sweep of expired rows (no table: each owning module deletes its own).
// The module's public surface: other modules and the composition root import it only from here.
export { RetentionSweep } from './sweep.js';
