/**
 * The stateful part: one DynamoDB table per shared table spec. Keys, indexes and streams come from
 * `shared/store/table-specs.ts` (the local runtime creates its tables from the same specs), so
 * nothing about a table is declared here except how AWS should run it.
 */

import {
  type Attribute,
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  allTableSpecs,
  type KeyAttribute,
  physicalTableName,
  type TableId,
  type TableSpec,
  tableStream,
} from '#shared/store/table-specs';
import type { StageConfig } from '../stage/config.ts';

/** The table's stream, when it has one. */
function streamProps(stream: TableSpec['stream']): { stream?: StreamViewType } {
  return stream ? { stream: StreamViewType[stream] } : {};
}

/** A table that remembers its spec, so a function bound to it learns the right env var. */
export class SpecTable extends Table {
  constructor(
    scope: Construct,
    readonly spec: TableSpec,
    config: StageConfig,
  ) {
    super(scope, tableConstructId(spec.id), {
      tableName: physicalTableName(config.stage, spec.id),
      partitionKey: toAttribute(spec.partitionKey),
      ...(spec.sortKey && { sortKey: toAttribute(spec.sortKey) }),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: config.deletionProtection,
      removalPolicy: config.removalPolicy,
      ...streamProps(tableStream(spec, config.reportingBackend)),
      ...(spec.timeToLiveAttribute && { timeToLiveAttribute: spec.timeToLiveAttribute }),
    });
    for (const index of spec.indexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: toAttribute(index.partitionKey),
        ...(index.sortKey && { sortKey: toAttribute(index.sortKey) }),
        ...(index.include && { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] }),
      });
    }
  }
}

export class Data extends Construct {
  readonly tables: Record<TableId, SpecTable>;

  constructor(scope: Construct, id: string, config: StageConfig) {
    super(scope, id);
    const entries = allTableSpecs.map((spec) => [spec.id, new SpecTable(this, spec, config)] as const);
    this.tables = Object.fromEntries(entries) as Record<TableId, SpecTable>;
  }
}

/** `voc-jobs` -> `VocJobsTable`: a stable logical id per spec, readable in the template. */
function tableConstructId(id: TableId): string {
  const pascal = id
    .split(/[^a-zA-Z0-9]+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
  return `${pascal}Table`;
}

function toAttribute(key: KeyAttribute): Attribute {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}
