/** Every JSON Schema by id: the source of the precompiled validators and of the OpenAPI document. */
import { AddInternalNoteBody } from './add-internal-note-body.ts';
import { ConversationPath } from './conversation-path.ts';
import { ErrorBody } from './error-body.ts';
import { ImportFile } from './import-file.ts';
import { InternalNoteResponse } from './internal-note-response.ts';
import { NoQuery } from './no-query.ts';

export const schemaCatalog = {
  AddInternalNoteBody,
  ConversationPath,
  ErrorBody,
  ImportFile,
  InternalNoteResponse,
  NoQuery,
} as const;
