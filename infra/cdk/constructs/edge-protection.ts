/**
 * What stands before the authorizer: a request with a random well-formed token
 * costs an authorizer invocation (and, for a key without a tag while the stage accepts those, a
 * strongly consistent read), and `/openapi.json` runs a function with no key at all, so a flood of
 * either could use up the region's Lambda concurrency that every tenant's functions share. Three
 * limits, each a stage setting (`edge` in config.ts): the stage throttle (on the RestApi's deploy
 * options, in api.ts), reserved concurrency on the two functions a caller without a valid key can
 * make run (api.ts, api-docs.ts), and this web ACL, whose rules are each a setting:
 * - AWS's managed IP reputation and anonymous IP lists (blocked: the gateway's WAF_FILTERED answer,
 *   403 in the API's own error shape);
 * - a rate-based rule per client IP over every request;
 * - the same, far lower, over the requests whose `Authorization` header cannot hold a key. WAF does
 *   not see the authorizer's answer, but it can see that a header is missing or has another shape:
 *   those requests are refused by the gateway or the authorizer anyway, so a low limit costs a
 *   caller nothing, and the address's requests with a well-formed key still pass.
 * Both rate rules answer 429 in the API's own error shape. A well-formed token with a wrong tag
 * passes WAF (an HMAC needs the secret) and is refused by the authorizer without a read.
 */
import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { keyFormatSource } from '#shared/auth/key-format';
import type { StageConfig } from '../stage/config.ts';

/** How long a blocked address is told to wait: WAF re-evaluates rate-based rules about every minute. */
const BLOCKED_RETRY_AFTER_SECONDS = 60;

export const WAF_BLOCK_BODY = JSON.stringify({
  code: 'RateLimitExceeded',
  message: `Too many requests from this address; retry after ${BLOCKED_RETRY_AFTER_SECONDS} seconds.`,
});

/** What both rate rules do past their limit: 429 with the body above, as the API's own 429s. */
const RATE_LIMITED: CfnWebACL.RuleActionProperty = {
  block: {
    customResponse: {
      responseCode: 429,
      customResponseBodyKey: 'RateLimited',
      responseHeaders: [{ name: 'Retry-After', value: String(BLOCKED_RETRY_AFTER_SECONDS) }],
    },
  },
};

/** AWS's managed rule groups a stage may turn on, by the setting that does. */
export const MANAGED_RULE_GROUPS = {
  wafIpReputationList: 'AWSManagedRulesAmazonIpReputationList',
  wafAnonymousIpList: 'AWSManagedRulesAnonymousIpList',
} as const;

/**
 * The rule of AWSManagedRulesAnonymousIpList that only counts: it blocks hosting and cloud
 * providers, where the servers that call this API run.
 */
export const COUNTED_ANONYMOUS_IP_RULE = 'HostingProviderIPList';

/**
 * Whether a stage's settings ask for a web ACL at all: any one of its rules.
 *
 * @example
 * if (wantsWebAcl(config.edge)) new EdgeWebAcl(this, 'EdgeWebAcl', { stage, config });
 */
export function wantsWebAcl(edge: StageConfig['edge']): boolean {
  return (
    edge.wafRequestsPerIpPer5Minutes !== undefined ||
    edge.wafMalformedKeyRequestsPerIpPer5Minutes !== undefined ||
    edge.wafIpReputationList ||
    edge.wafAnonymousIpList
  );
}

/**
 * The regular expressions (WAF's dialect: no groups) an `Authorization` header that holds a key
 * matches, once lower-cased: `Bearer` and a tagged key, or an untagged one while the stage accepts
 * those. Both are what shared/auth/parse-bearer-token.ts and key-format.ts accept.
 *
 * @example
 * keyHeaderPatterns(true); // ['^bearer[ \t]+cxm_[a-z0-9]{12}_[a-z0-9]{40}_[a-z0-9]{8}[ \t]*$', '...untagged...']
 */
export function keyHeaderPatterns(acceptUntaggedKeys: boolean): string[] {
  const forms = acceptUntaggedKeys ? (['tagged', 'untagged'] as const) : (['tagged'] as const);
  return forms.map((form) => `^bearer[ \\t]+${keyFormatSource(form)}[ \\t]*$`);
}

export interface EdgeWebAclProps {
  stage: Stage;
  config: StageConfig;
}

export class EdgeWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, { stage, config }: EdgeWebAclProps) {
    super(scope, id);
    const { edge, stage: stageName } = config;
    const metric = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `cxm-${stageName}-${name}`,
      sampledRequestsEnabled: true,
    });
    const rules: CfnWebACL.RuleProperty[] = [];
    const add = (rule: Omit<CfnWebACL.RuleProperty, 'priority'>) => rules.push({ ...rule, priority: rules.length });

    // The lists first: an address they block is not counted by the rate rules either.
    for (const [setting, name] of Object.entries(MANAGED_RULE_GROUPS) as [keyof typeof MANAGED_RULE_GROUPS, string][]) {
      if (!edge[setting]) continue;
      add({
        name,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name,
            ...(name === MANAGED_RULE_GROUPS.wafAnonymousIpList && {
              ruleActionOverrides: [{ name: COUNTED_ANONYMOUS_IP_RULE, actionToUse: { count: {} } }],
            }),
          },
        },
        visibilityConfig: metric(name),
      });
    }
    if (edge.wafRequestsPerIpPer5Minutes !== undefined) {
      add({
        name: 'RequestsPerIp',
        statement: {
          rateBasedStatement: {
            aggregateKeyType: 'IP',
            limit: rateLimit(edge.wafRequestsPerIpPer5Minutes, 'wafRequestsPerIpPer5Minutes', stageName),
            evaluationWindowSec: 300,
          },
        },
        action: RATE_LIMITED,
        visibilityConfig: metric('requests-per-ip'),
      });
    }
    if (edge.wafMalformedKeyRequestsPerIpPer5Minutes !== undefined) {
      const [first, ...others] = keyHeaderPatterns(edge.acceptUntaggedKeys).map(
        (regexString): CfnWebACL.StatementProperty => ({
          regexMatchStatement: {
            fieldToMatch: { singleHeader: { Name: 'authorization' } },
            regexString,
            textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
          },
        }),
      );
      const holdsKey = others.length === 0 ? first! : { orStatement: { statements: [first!, ...others] } };
      add({
        name: 'MalformedKeyRequestsPerIp',
        statement: {
          rateBasedStatement: {
            aggregateKeyType: 'IP',
            limit: rateLimit(
              edge.wafMalformedKeyRequestsPerIpPer5Minutes,
              'wafMalformedKeyRequestsPerIpPer5Minutes',
              stageName,
            ),
            evaluationWindowSec: 300,
            // A missing header matches no regular expression, so it is counted too.
            scopeDownStatement: { notStatement: { statement: holdsKey } },
          },
        },
        action: RATE_LIMITED,
        visibilityConfig: metric('malformed-key-requests-per-ip'),
      });
    }

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `cxm-${stageName}`,
      description: `Stage ${stageName}: blocks client addresses by reputation and request rate, before any authorizer runs`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metric('web-acl'),
      customResponseBodies: { RateLimited: { contentType: 'APPLICATION_JSON', content: WAF_BLOCK_BODY } },
      rules,
    });
    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: `arn:${Stack.of(this).partition}:apigateway:${Stack.of(this).region}::/restapis/${stage.restApi.restApiId}/stages/${stage.stageName}`,
      webAclArn: this.webAcl.attrArn,
    });
  }
}

/** A rate-based rule's limit, held to WAF's own bounds so a bad setting fails the synthesis. */
function rateLimit(limit: number, setting: string, stageName: string): number {
  if (!Number.isInteger(limit) || limit < 10 || limit > 2_000_000_000) {
    throw new Error(
      `edge.${setting} of stage ${stageName} must be a whole number from 10 to 2000000000 (WAF's bounds), not ${limit}`,
    );
  }
  return limit;
}
