import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/** Headers every API response carries, errors included (DESIGN section 2, step 8). */
export function commonHeaders(requestId: string): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestId,
  };
}

export function withCommonHeaders(event: APIGatewayProxyEvent, response: APIGatewayProxyResult): APIGatewayProxyResult {
  return { ...response, headers: { ...commonHeaders(event.requestContext.requestId), ...response.headers } };
}
