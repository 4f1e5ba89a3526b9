/**
 * The name of the CloudWatch Logs resource policy an OpenSearch stage adds, apart from the other
 * stage names because it needs the construct tree's hashing (`constructs`), which the local runtime
 * and the CLI's other commands do not load.
 */
import { Construct } from 'constructs';
import { SEARCH_CONSTRUCT_ID, SEARCH_DOMAIN_ID, stackName } from './stage-names.ts';

/**
 * The CloudWatch Logs resource policy an OpenSearch stage adds to its account and region. CDK's
 * OpenSearch Domain lets the service write the domain's slow and error logs through an
 * account-wide policy (a custom resource calling `PutResourcePolicy`) named `ESLogPolicy` and the
 * domain's construct address, a hash of its path in the construct tree. Only 10 such policies fit
 * in an account and region, so `cxm preflight` counts them, and must know this stage's own to
 * count it once on a redeploy. test/infra/search.test.ts holds the name to the synthesized template.
 *
 * @example searchLogPolicyName('dev') // 'ESLogPolicyc81217a9da220e84b698f579837465195e91db4f97'
 */
export function searchLogPolicyName(stage: string): string {
  // The same tree as the app's, down to the domain, so `node.addr` is the one CDK names the policy
  // with; the root of a tree has no scope (CDK's App has none either).
  const root = new Construct(undefined as never, '');
  const domain = new Construct(
    new Construct(new Construct(root, stackName(stage)), SEARCH_CONSTRUCT_ID),
    SEARCH_DOMAIN_ID,
  );
  return `ESLogPolicy${domain.node.addr}`;
}
