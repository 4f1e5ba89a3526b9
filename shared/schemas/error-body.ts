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
