import type { PolicyDocument } from 'aws-lambda';

/**
 * An Allow for every method and path of the request's stage: `arn:...:apiId/stage/METHOD/path`
 * -> `arn:...:apiId/stage/*\/*`. API Gateway caches the policy per Authorization header, so a
 * policy naming only the first request's route would refuse the key's next request elsewhere.
 * Per-route rules (tenant, scope) are checked by each function's chain instead.
 */
export function allowWholeStage(methodArn: string): PolicyDocument {
  const [prefix = '', stage = ''] = methodArn.split('/');
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${prefix}/${stage}/*/*` }],
  };
}
