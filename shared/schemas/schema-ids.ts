import type { schemaCatalog } from './schema-catalog.ts';

export type SchemaId = keyof typeof schemaCatalog;
