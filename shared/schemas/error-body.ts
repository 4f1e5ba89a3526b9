/** Every error code the contract allows (spec "Errors"), plus `Unavailable` for the reporting lists. */
export const errorCodes = [
  'BadRequest',
  'InvalidCustomField',
  'Unauthenticated',
  'PermissionDenied',
  'EmailChannelNotFound',
  'AssigneeNotFound',
  'NotFound',
  'EmailChannelDisabled',
  'ContactIdentityConflict',
  'OrganizationAmbiguous',
  'AssigneeAmbiguous',
  'Conflict',
  'PayloadTooLarge',
  'RateLimitExceeded',
  'BadGateway',
  'ServiceUnavailable',
  'GatewayTimeout',
  'Unavailable',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export const ErrorBody = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', enum: [...errorCodes] },
    message: { type: 'string' },
  },
} as const;

/** A fault of the MCP endpoint: 500 with only a message (the MCP endpoint, stateless; `faultBody: 'message-only'`). */
export const MessageOnlyErrorBody = {
  $id: 'MessageOnlyErrorBody',
  type: 'object',
  required: ['message'],
  additionalProperties: false,
  properties: { message: { type: 'string' } },
} as const;
