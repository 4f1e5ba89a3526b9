/** The success of a route that answers no body (a DELETE's 204): nothing to validate, nothing documented as content. */
export const NoContent = {
  $id: 'NoContent',
  description: 'No body.',
} as const;
