/** The documents store of this function, bound to its table at cold start. */
import { documentClient } from './dynamo-client.ts';
import { createDocumentsStore } from './documents-store.ts';
import { tableName } from './table-name.ts';

export const documentsStore = () => createDocumentsStore(documentClient(), tableName('documents'));
