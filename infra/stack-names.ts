/**
 * How a stage's CloudFormation stack and its outputs are named. CDK names them with these, and
 * `cxm smoke --stage` finds the stage's base URL by them; a module of its own so the CLI need not
 * load aws-cdk-lib.
 */
export function stackName(stage: string): string {
  return `cxm-${stage}`;
}

/** The stack output holding the stage's base URL (`https://<api>.execute-api.<region>.amazonaws.com/<stage>/`). */
export const API_URL_OUTPUT = 'ApiUrl';
