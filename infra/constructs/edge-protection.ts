/**
 * What stands before the authorizer: a request with a random well-formed token
 * costs an authorizer invocation and a strongly consistent read, and `/openapi.json` runs a
 * function with no key at all, so a flood of either could use up the region's Lambda concurrency
 * that every tenant's functions share. Three limits, each a stage setting (`edge` in config.ts):
 * the stage throttle (on the RestApi's deploy options, in api.ts), reserved concurrency on the two
 * functions a caller without a valid key can make run (api.ts, api-docs.ts), and this web ACL: a
 * rate-based rule per client IP that answers 429 in the API's own error shape.
 */
import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** How long a blocked address is told to wait: WAF re-evaluates rate-based rules about every minute. */
const BLOCKED_RETRY_AFTER_SECONDS = 60;

export const WAF_BLOCK_BODY = JSON.stringify({
  code: 'RateLimitExceeded',
  message: `Too many requests from this address; retry after ${BLOCKED_RETRY_AFTER_SECONDS} seconds.`,
});

export interface EdgeWebAclProps {
  stage: Stage;
  stageName: string;
  requestsPerIpPer5Minutes: number;
}

export class EdgeWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, { stage, stageName, requestsPerIpPer5Minutes }: EdgeWebAclProps) {
    super(scope, id);
    // WAF's own bounds for a rate-based rule's limit.
    if (!Number.isInteger(requestsPerIpPer5Minutes) || requestsPerIpPer5Minutes < 10 || requestsPerIpPer5Minutes > 2_000_000_000) {
      throw new Error(`edge.wafRequestsPerIpPer5Minutes of stage ${stageName} must be a whole number from 10 to 2000000000 (WAF's bounds), not ${requestsPerIpPer5Minutes}`);
    }
    const metric = (name: string) => ({ cloudWatchMetricsEnabled: true, metricName: `cxm-${stageName}-${name}`, sampledRequestsEnabled: true });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `cxm-${stageName}`,
      description: `Stage ${stageName}: blocks a client address past its request rate, before any authorizer runs`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric('web-acl'),
      customResponseBodies: { RateLimited: { contentType: 'APPLICATION_JSON', content: WAF_BLOCK_BODY } },
      rules: [
        {
          name: 'RequestsPerIp',
          priority: 0,
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: requestsPerIpPer5Minutes, evaluationWindowSec: 300 } },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'RateLimited',
                responseHeaders: [{ name: 'Retry-After', value: String(BLOCKED_RETRY_AFTER_SECONDS) }],
              },
            },
          },
          visibilityConfig: metric('requests-per-ip'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: `arn:${Stack.of(this).partition}:apigateway:${Stack.of(this).region}::/restapis/${stage.restApi.restApiId}/stages/${stage.stageName}`,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
