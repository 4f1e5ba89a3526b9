/**
 * The CloudWatch Logs resource policy an OpenSearch stage adds to its account and region. CDK's
 * OpenSearch Domain lets the service write the domain's slow and error logs through an
 * account-wide policy (a custom resource calling `PutResourcePolicy`) named `ESLogPolicy` and the
 * domain's construct address, a hash of its path in the construct tree. Only 10 such policies fit
 * in an account and region, so `cxm preflight` counts them, and must know this stage's own to
 * count it once on a redeploy. test/infra/search.test.ts holds the name to the synthesized template.
 *
 * A module of its own, free of aws-cdk-lib, so the CLI can name the policy without loading it.
 */
import { Construct } from 'constructs';
import { stackName } from './stack-names.ts';

/** The id of the stage's ReportingSearch in its stack (stack.ts). */
export const SEARCH_CONSTRUCT_ID = 'Search';
/** The id of the OpenSearch Domain in ReportingSearch (constructs/search.ts). */
export const SEARCH_DOMAIN_ID = 'Domain';

/**
 * The name of the stage's Logs resource policy for its search domain's logs.
 *
 * @example searchLogPolicyName('dev') // 'ESLogPolicyc81217a9da220e84b698f579837465195e91db4f97'
 */
export function searchLogPolicyName(stage: string): string {
  // The same tree as the app's, down to the domain, so `node.addr` is the one CDK names the policy
  // with; the root of a tree has no scope (CDK's App has none either).
  const root = new Construct(undefined as never, '');
  const domain = new Construct(new Construct(new Construct(root, stackName(stage)), SEARCH_CONSTRUCT_ID), SEARCH_DOMAIN_ID);
  return `ESLogPolicy${domain.node.addr}`;
}
