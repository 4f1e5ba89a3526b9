/**
 * Every IAM policy statement a CloudFormation template holds, wherever it is: identity policies
 * (AWS::IAM::Policy, AWS::IAM::ManagedPolicy, the inline `Policies` of a role), trust policies
 * (AssumeRolePolicyDocument), resource policies (bucket, queue, topic, KMS key, OpenSearch domain
 * and any other), and documents written as JSON text, such as the CloudWatch Logs resource policy
 * that CDK's AwsCustomResource puts for the search domain's logs (JSON inside an `Fn::Join`).
 *
 * Documents are found by their shape (an object whose `Statement` holds statements with an
 * `Effect`), not from a list of resource types and properties, so a resource policy of a kind no
 * one listed is still found. A Lambda permission (AWS::Lambda::Permission) is a statement with no
 * document: it is read as one statement of its `Action`.
 */
import type { CfnTemplate } from './stage-templates.ts';

/** One statement, as IAM reads it; the members the checks use are named, the rest kept as they are. */
export interface PolicyStatement {
  Sid?: unknown;
  Effect?: unknown;
  Action?: unknown;
  NotAction?: unknown;
  Condition?: unknown;
  [member: string]: unknown;
}

export interface FoundStatement {
  /**
   * Where the statement is, as a path from the template's root:
   * `Resources/<logical id>/Properties/.../Statement/<index>`. A segment ending in ` (JSON)` is a
   * string (or an `Fn::Join` of strings) whose text is JSON, read as such.
   */
  location: string;
  logicalId: string;
  /** The type of the resource that holds it, e.g. `AWS::IAM::Role`. */
  resourceType: string;
  statement: PolicyStatement;
}

/** Every statement of every policy document of the template, in template order. */
export function policyStatements(template: CfnTemplate): FoundStatement[] {
  const found: FoundStatement[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const at = ['Resources', logicalId, 'Properties'];
    const add = (statement: PolicyStatement, path: string[]) =>
      found.push({ location: path.join('/'), logicalId, resourceType: resource.Type, statement });
    if (resource.Type === 'AWS::Lambda::Permission') {
      add({ Effect: 'Allow', Action: resource.Properties?.Action }, [...at, 'Action']);
      continue;
    }
    visit(resource.Properties, at, add);
  }
  return found;
}

/** Whether a value is a policy document: a `Statement` of one statement or a list of them, each with an `Effect`. */
function isPolicyDocument(value: object): value is { Statement: unknown } {
  if (!('Statement' in value)) return false;
  const statements = [value.Statement].flat();
  return statements.length > 0 && statements.every((statement) => isObject(statement) && 'Effect' in statement);
}

function visit(value: unknown, path: string[], add: (statement: PolicyStatement, path: string[]) => void): void {
  if (typeof value === 'string') {
    const parsed = parseJsonText(value);
    if (parsed !== undefined) visit(parsed, asJson(path), add);
    return;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) visit(item, [...path, String(index)], add);
    return;
  }
  if (!isObject(value)) return;
  if (isPolicyDocument(value)) {
    const { Statement } = value;
    if (!Array.isArray(Statement)) add(Statement as PolicyStatement, [...path, 'Statement']);
    else
      for (const [index, statement] of Statement.entries())
        add(statement as PolicyStatement, [...path, 'Statement', String(index)]);
    return;
  }
  const text = intrinsicText(value);
  const parsed = text === undefined ? undefined : parseJsonText(text);
  if (parsed !== undefined) {
    visit(parsed, asJson(path), add);
    return;
  }
  for (const [key, member] of Object.entries(value)) visit(member, [...path, key], add);
}

/**
 * The text an `Fn::Join` or `Fn::Sub` makes, with `<intrinsic>` for each value only CloudFormation
 * knows (a Ref, a GetAtt): enough to parse the JSON it writes, such as a policy document whose
 * resources are the ARNs of the stack's log groups. Undefined for any other value.
 */
function intrinsicText(value: object): string | undefined {
  const entries = Object.entries(value);
  if (entries.length !== 1) return undefined;
  const [[name, args]] = entries as [[string, unknown]];
  if (name === 'Fn::Sub') {
    const text = Array.isArray(args) ? args[0] : args;
    return typeof text === 'string' ? text : undefined;
  }
  if (name !== 'Fn::Join' || !Array.isArray(args) || typeof args[0] !== 'string' || !Array.isArray(args[1]))
    return undefined;
  const [delimiter, parts] = args as [string, unknown[]];
  const partText = (part: unknown) =>
    typeof part === 'string' ? part : ((isObject(part) ? intrinsicText(part) : undefined) ?? '<intrinsic>');
  return parts.map(partText).join(delimiter);
}

function parseJsonText(text: string): unknown {
  if (!/^\s*[{[]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The path of a value read as JSON text: its last segment marked. */
function asJson(path: string[]): string[] {
  return [...path.slice(0, -1), `${path.at(-1)} (JSON)`];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
