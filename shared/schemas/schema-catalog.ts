/** Every JSON Schema by id: the source of the precompiled validators and of the OpenAPI document. */
import { AddInternalNoteBody } from './add-internal-note-body.ts';
import { ConversationPath } from './conversation-path.ts';
import { DocumentBody, DocumentList } from './document-schemas.ts';
import { DocumentVersionList, DocumentVersionPath, ListDocumentVersionsQuery } from './document-version-schemas.ts';
import { ErrorBody, MessageOnlyErrorBody } from './error-body.ts';
import { ImportFile } from './import-file.ts';
import { InternalNoteResponse } from './internal-note-response.ts';
import { JsonRpcBadRequest, JsonRpcMessage, JsonRpcMethodNotFound, JsonRpcRequest } from './json-rpc-message.ts';
import { ListDocumentsQuery } from './list-documents-query.ts';
import { NoContent } from './no-content.ts';
import { NoQuery } from './no-query.ts';
import { CollectionPath, DocumentPath } from './provisioning-paths.ts';
import { AssistantReportList, ReportQuery, VocReportList } from './report-schemas.ts';
import { TenantPath } from './tenant-path.ts';
import { CreateRecordingUploadBody, RecordingUpload, VocJobPath, VocJobStatus } from './voc-schemas.ts';
import { DocumentChangedWebhook, NoteCreatedWebhook, VocJobEndedWebhook } from './webhook-event-schemas.ts';
import {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesQuery,
  RecoveredWebhookDeliveries,
  RecoverWebhookDeliveriesBody,
  RotatedWebhookSecret,
  UpdateWebhookEndpointBody,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointPath,
} from './webhook-schemas.ts';

export const schemaCatalog = {
  AddInternalNoteBody,
  AssistantReportList,
  CollectionPath,
  ConversationPath,
  CreatedWebhookEndpoint,
  CreateRecordingUploadBody,
  CreateWebhookEndpointBody,
  DocumentBody,
  DocumentChangedWebhook,
  DocumentList,
  DocumentPath,
  DocumentVersionList,
  DocumentVersionPath,
  ErrorBody,
  ImportFile,
  InternalNoteResponse,
  JsonRpcBadRequest,
  JsonRpcMessage,
  JsonRpcMethodNotFound,
  JsonRpcRequest,
  ListDocumentsQuery,
  ListDocumentVersionsQuery,
  ListWebhookDeliveriesQuery,
  MessageOnlyErrorBody,
  NoContent,
  NoteCreatedWebhook,
  NoQuery,
  RecordingUpload,
  RecoveredWebhookDeliveries,
  RecoverWebhookDeliveriesBody,
  ReportQuery,
  RotatedWebhookSecret,
  TenantPath,
  UpdateWebhookEndpointBody,
  VocJobPath,
  VocJobEndedWebhook,
  VocJobStatus,
  VocReportList,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointPath,
} as const;
