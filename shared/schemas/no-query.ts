/** For routes that take no query parameters: any parameter is an unknown one (400). */
export const NoQuery = {
  $id: 'NoQuery',
  type: 'object',
  additionalProperties: false,
  properties: {},
} as const;
