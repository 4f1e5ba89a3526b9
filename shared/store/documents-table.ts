/** The documents store of this function, bound to its table at cold start. */

import { createDocumentsStore } from './documents-store.ts';
import { documentClient } from './dynamo-client.ts';
import { tableName } from './table-name.ts';

export const documentsStore = () => createDocumentsStore(documentClient(), tableName('documents'));
