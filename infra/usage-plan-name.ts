/**
 * The usage plan of a stage. CDK names it; `cxm keys create --stage` finds it by this name
 * to attach each tenant key's API Gateway key, so the two must agree.
 */
export function usagePlanName(stage: string): string {
  return `cxm-${stage}`;
}
