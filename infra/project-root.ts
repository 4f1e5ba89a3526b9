import { fileURLToPath } from 'node:url';

/** The project root: route handlers, the lock file and README are addressed relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
